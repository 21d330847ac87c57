"""The sentences the terminal, the report and the workbook share: why an option wins or loses, what limits it,
findings, break-even and crossover points. They read the engine's typed results; renderers only place them."""

from __future__ import annotations

from .common import (REQUIRE_WORDS, defs, device_name, held_against, input_text, label, objective_words, pairs_of,
                     rate, role_value, show, used_keys, workload_ids, workload_title)
from .money import (BASIS_WORDS, HOURS_PER_MONTH, api_service_words, api_target_words, api_words, basis_words,
                    committed, cost_driver, cost_sentence, money, money_text, renting)
from .decision import (alternative_words, device_deployment, failure_tag, failure_words, fleet_words, forward_reason,
                       option_tag, physics, target_detail, time_driver, value_words, verdict, why)
from .findings import (breakeven, breakeven_words, crossover_words, finding, findings, plain, precision_finding,
                       train_fit)

__all__ = ['BASIS_WORDS', 'HOURS_PER_MONTH', 'REQUIRE_WORDS', 'alternative_words', 'api_service_words',
           'api_target_words', 'api_words', 'basis_words', 'breakeven', 'breakeven_words', 'committed', 'cost_driver',
           'cost_sentence', 'crossover_words', 'defs', 'device_deployment', 'device_name', 'failure_tag',
           'failure_words', 'finding', 'findings', 'fleet_words', 'forward_reason', 'held_against', 'input_text',
           'label', 'money', 'money_text', 'objective_words', 'option_tag', 'pairs_of', 'physics',
           'plain', 'precision_finding', 'rate', 'renting', 'role_value', 'show', 'target_detail', 'time_driver', 'train_fit',
           'used_keys', 'value_words', 'verdict', 'why', 'workload_ids', 'workload_title']
