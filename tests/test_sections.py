"""The report's workload sections list each input once: a new user's report ran to 57 pages, the device tables
repeated under every alternative."""

from helpers import results_of

from sizing.render.report.build import sections


def test_each_input_is_listed_under_the_first_section_that_reads_it():
    r = results_of("chat-70b-fp8")
    listed: dict[tuple[str, str], str] = {}
    secs = sections(r)
    assert [s.id for s in secs] == ["chat", "chat-bf16", "chat-b5", "chat-b21", "chat-b39", "chat-b46"]
    for s in secs:
        for g in s.inputs:
            for field, *_ in g.rows:
                assert (g.entity, field) not in listed, (g.entity, field, s.title, listed.get((g.entity, field)))
                listed[(g.entity, field)] = s.title
    first, bf16, *found = secs
    assert first.repeated == "" and sum(g.entity.startswith("device ") for g in first.inputs) == 5
    assert bf16.repeated == ("The inputs listed above under “Support assistant (chat)” apply here too; only those it "
                             "sets or reads alone follow.")
    # the alternative lists what it sets and the devices' BF16 figures the FP8 workload does not read, no more
    fields = {(g.entity.split(" ")[0], f) for g in bf16.inputs for f, *_ in g.rows}
    assert ("workload", "bytes_per_value") in fields and ("device", "compute.bf16") in fields
    assert {f for kind, f in fields if kind == "device"} == {"compute.bf16", "efficiency"}
    lora = sections(results_of("finetune-approach"))[1]
    assert [(g.entity, [f for f, *_ in g.rows]) for g in lora.inputs] == [("workload tune-lora", ["trainable"])]


def test_a_second_workload_lists_only_what_the_first_did_not():
    r = results_of("platform-two-services")
    one, two = sections(r)[:2]
    firsts = {(g.entity, f) for g in one.inputs for f, *_ in g.rows}
    seconds = {(g.entity, f) for g in two.inputs for f, *_ in g.rows}
    assert firsts and seconds and not firsts & seconds
    assert two.repeated.startswith(f"The inputs listed above under “{one.title}” apply here too")


def test_a_layout_at_another_count_is_listed_where_the_count_differs_from_the_devices_used():
    """The layout on whole servers is listed (72 H100s beside the 68 used); the one on the devices that hold the
    state is not (they are the devices used: its rows would repeat the rows above)."""
    r = results_of("pretrain-deadline")
    (table,) = sections(r)[0].results
    labels = [row[0] for row in table.rows]
    assert "Weights sharded on whole servers" in labels and "Training time on whole servers" in labels
    assert not [x for x in labels if x.endswith("on the devices that hold the state")]
    assert "Training time on devices that hold the state" in labels                  # the figure itself stays


def test_a_device_note_about_one_field_is_on_that_fields_row():
    """A procurement reviewer read '2 unverified source notes bear on it (its memory size: ROCm docs list memory as
    192 GiB; ...)' on page 2 and found no note on the MI300X's memory row."""
    r = results_of("finetune-approach")
    rows = {(g.entity, row[0]): row[3] for s in sections(r) for g in s.inputs for row in g.rows}
    assert rows[("device mi300x — AMD Instinct MI300X", "memory")] == "unverified: ROCm docs list memory as 192 GiB"
    assert "unverified" not in rows[("device mi300x — AMD Instinct MI300X", "memory_bandwidth")]
