"""Forward passes (encoders, embedders, classifiers, edge models): a batch of requests per pass."""

from .common import (after_reserve, FLOP_PER_PARAM_TOKEN, MILLION, MONTH, NO_FABRIC, REQUEST, REQUEST_COPIES, TOKEN,
                     TP_ALL_REDUCES, all_reduce, attention_flops, embedding, plus, roofline_time,
                     weights_read, without_fabric)
from .expr import ceil, first_present, if_given, Missing, sum_present
from .graph import NA, comparison, quantity
from .traffic import priced

@quantity("forward", "footprint_bytes", "byte", "weights: parameters × bytes per value", display="MB", label="Weights")
def fw_footprint(q):
    return q.parameters * q.bytes_per_value


@quantity("forward", "fits", "", "footprint ≤ memory of the replica", label="Fits in memory", type="check",
          compares=("footprint_bytes", "replica_memory"), requirement=True)
def fw_fits(q):
    return q.footprint_bytes <= q.replica_memory


@quantity("forward", "devices_to_fit", "", "devices needed to hold the weights", label="Devices to fit", count=True)
def fw_devices_to_fit(q):
    return ceil(q.footprint_bytes / after_reserve(q, q.memory))


@quantity("forward", "arithmetic_parameters", "",
          "parameters doing arithmetic per token: parameters − the input embedding (vocabulary × hidden)",
          label="Parameters doing arithmetic")
def fw_arithmetic_parameters(q):
    table = embedding(q)
    return q.parameters if isinstance(table, Missing) else q.parameters - table


@quantity("forward", "flops_per_request", "FLOP",
          "2 × parameters doing arithmetic × tokens + attention over the whole sequence (4 × layers × heads × "
          "head_dim × tokens²)", display="GFLOP", label="Work per request")
def fw_flops(q):
    return sum_present(FLOP_PER_PARAM_TOKEN * q.arithmetic_parameters * q.tokens,
                       attention_flops(q, q.tokens, q.tokens))


@quantity("forward", "compute_time", "s", "the batch's FLOPs at the delivered rate of the replica", display="ms",
          label="Compute time")
def fw_compute_time(q):
    return q.batch * q.flops_per_request / (q.delivered_rate * q.replica_devices)


@quantity("forward", "memory_time", "s", "weights streamed once per batch at the delivered bandwidth",
          display="ms", label="Memory time")
def fw_memory_time(q):
    return weights_read(q, q.tokens, q.footprint_bytes) / (q.delivered_bandwidth * q.replica_devices)


@quantity("forward", "overhead_time", "s",
          "fixed costs of a pass: layers × overhead per layer, and over a host link 2 copies × copy overhead + "
          "launch overhead", display="us", label="Fixed overheads")
def fw_overhead(q):
    link = sum_present(REQUEST_COPIES * q.copy_overhead, q.launch_overhead) if q.has("link_bandwidth") else NA
    return sum_present(q.layers * q.layer_overhead, link)


@quantity("forward", "communication_time", "s",
          "tensor parallel: 2 ring all-reduces per layer of batch × tokens × hidden × activation bytes",
          display="us", warn=NO_FABRIC, warn_on=("interconnect_bandwidth",), label="Communication")
def fw_communication(q):
    if (absent := without_fabric(q)) is not None:
        return absent
    message = q.batch * q.tokens / TOKEN * q.hidden * q.activation_bytes
    return TP_ALL_REDUCES * q.layers * all_reduce(q, q.replica_devices, message)


@quantity("forward", "latency", "s", "one batch: max(compute time, memory time) + fixed overheads + communication",
          display="ms", label="Latency")
def fw_latency(q):
    return plus(roofline_time(q.compute_time, q.memory_time), q.overhead_time, q.communication_time)


@quantity("forward", "requests_per_s", "request/s", "requests one replica serves per second: batch / latency",
          display="request/s", maximise=True, label="Requests/s per replica")
def fw_requests_per_s(q):
    return q.batch * REQUEST / q.latency


@quantity("forward", "slots", "", "requests one replica serves at once: the batch", label="Requests served at once",
          count=True)
def fw_slots(q):
    return q.batch


@quantity("forward", "response_p95", "s", "latency + queue wait at the p95 of the peak", display="ms",
          label="Response time (p95)")
def fw_response_p95(q):
    return q.latency + q.queue_wait_p95


@quantity("forward", "devices_needed", "", "devices for the peak: the devices in the fleet",
          label="Devices for the peak", count=True)
def fw_devices_needed(q):
    return q.fleet_devices


@quantity("forward", "meets_latency", "", "latency (with queueing at the peak) ≤ target",
          label="Meets latency target", type="check", requirement=True)
def fw_meets_latency(q):
    return first_present(q.response_p95, q.latency) <= q.latency_target


@quantity("forward", "meets_targets", "", "every latency target given is met", label="Meets latency targets",
          type="check", requirement=True)
def fw_meets_targets(q):
    return q.meets_latency


@quantity("forward", "target_slack", "s", "time left for queueing within the latency target", display="ms",
          label="Time left for queueing")
def fw_target_slack(q):
    return q.latency_target - q.latency


@quantity("forward", "cost_per_million_requests", "USD",
          "with traffic: monthly cost / requests served per month at the average traffic; without: device cost × "
          "devices per replica / (requests per second × utilisation); × one million requests",
          display="USD", label="Cost per million requests")
def fw_cost_per_million(q):
    if q.has("peak_traffic"):
        return priced(q, q.monthly_cost / (q.average_rate * MONTH) * REQUEST * MILLION)
    return priced(q, q.hourly_rate * q.replica_devices / (q.requests_per_s * q.utilisation) * REQUEST * MILLION)


@quantity("forward", "item_time", "s", "bulk job: one item's FLOPs at the delivered rate of a replica",
          display="ms", label="Bulk job, time per item")
def fw_item_time(q):
    return FLOP_PER_PARAM_TOKEN * q.arithmetic_parameters * q.job_tokens / (q.delivered_rate * q.replica_devices)


@quantity("forward", "batch_job_time", "s", "bulk job: items × item time", display="h", label="Bulk job duration")
def fw_batch_job_time(q):
    return q.job_items * q.item_time


@quantity("forward", "batch_job_cost", "USD", "bulk job: time × devices per replica × price", display="USD",
          label="Bulk job cost")
def fw_batch_job_cost(q):
    return if_given(q.batch_job_time * q.replica_devices * q.hourly_rate, q.hourly_rate)


@comparison(("forward",), "speedup_vs", "", "latency on the other device / latency here", base="latency")
def fw_speedup(this, other):
    return other / this
