"""Benchmark records: measured economics and the tie to a prediction."""

from .common import PER_MILLION
from .expr import all_of
from .graph import quantity

# -- benchmark records ----------------------------------------------------------------------
@quantity("benchmark", "cost_per_million_tokens", "USD/Mtoken",
          "recorded price / measured output tokens per second, per million tokens", display="USD/Mtoken",
          label="Cost per million output tokens")
def bm_cost(q):
    return q.measured_price / q.measured_throughput * PER_MILLION


@quantity("benchmark", "effective_throughput", "token/s", "measured throughput × utilisation", display="token/s",
          label="Effective throughput")
def bm_effective(q):
    return q.measured_throughput * q.utilisation


@quantity("benchmark", "cost_per_million_tokens_at_utilisation", "USD/Mtoken",
          "recorded price / (measured throughput × utilisation), per million tokens", display="USD/Mtoken",
          label="Cost per million output tokens at the utilisation")
def bm_cost_at_utilisation(q):
    return q.measured_price / q.effective_throughput * PER_MILLION


@quantity("benchmark", "predicted_tokens_per_s", "token/s", "the scenario's prediction for the same configuration",
          display="token/s", label="Predicted tokens/s")
def bm_predicted(q):
    return q.prediction


@quantity("benchmark", "measured_vs_predicted", "", "measured / predicted throughput", display="%",
          label="Measured / predicted")
def bm_ratio(q):
    return q.measured_throughput / q.predicted_tokens_per_s


@quantity("benchmark", "calibrated_efficiency", "",
          "compute efficiency that makes the prediction match the measurement (when compute-bound)", display="%",
          label="Calibrated compute efficiency")
def bm_calibrated_efficiency(q):
    return q.efficiency_now * q.measured_vs_predicted


@quantity("benchmark", "calibrated_bandwidth_efficiency", "",
          "bandwidth efficiency that makes the prediction match the measurement (when memory-bound)", display="%",
          label="Calibrated bandwidth efficiency")
def bm_calibrated_bandwidth(q):
    return q.bandwidth_efficiency_now * q.measured_vs_predicted


@quantity("benchmark", "within_peak", "",
          "the measurement needs no more than the device's peaks: calibrated compute and bandwidth efficiencies ≤ "
          "100 %; above, the record beats the declared peak (check the record's configuration or the device's "
          "figures)", label="Measurement within the device's peaks", type="check")
def bm_within_peak(q):
    return all_of(q.calibrated_efficiency <= 1, q.calibrated_bandwidth_efficiency <= 1)
