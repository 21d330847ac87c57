"""Every input the formulas read: its unit, meaning and the scenario field it comes from."""

from .graph import inp, text_input

# -- inputs ---------------------------------------------------------------------------------
# Each input names the scenario field it is read from (device=, model=, workload=; "{p}" is the
# workload's precision; a workload field wins over the model's), whether it is an assumption a
# sensitivity analysis may move (structure and choices are not), and whether it is a fraction.
inp("compute_rate", "FLOP/s", "peak dense rate at the workload's precision", device="compute.{p}")
inp("delivered_given", "FLOP/s", "delivered rate at the workload's precision, as given", device="delivered.{p}")
inp("efficiency", "", "delivered / peak where no delivered rate is given", device="efficiency", fraction=True)
inp("memory", "byte", "device memory capacity", device="memory")
inp("memory_bandwidth", "byte/s", "device memory bandwidth", device="memory_bandwidth")
inp("link_bandwidth", "byte/s", "host link bandwidth per direction", device="link.bandwidth")
inp("copy_overhead", "s", "fixed time per copy over the link", device="link.copy_overhead")
inp("launch_overhead", "s", "fixed time to launch a kernel", device="link.launch_overhead")
inp("matrix_unit", "", "matrix unit tile edge", device="matrix_unit", assumption=False)
inp("price", "USD/s", "rental price per device", device="price")
inp("cores", "", "CPU cores", device="cpu.cores", assumption=False)
inp("fma_units", "", "vector FMA units per core", device="cpu.fma_units", assumption=False)
inp("vector_width", "byte", "vector register width", device="cpu.vector_width", assumption=False)
inp("clock", "1/s", "CPU clock", device="cpu.clock")
inp("bandwidth_efficiency", "", "delivered / peak memory bandwidth", device="bandwidth_efficiency", fraction=True)
inp("train_efficiency", "", "model-FLOPs utilisation in training", device="train_efficiency", fraction=True)
inp("layer_overhead", "s", "fixed time per layer and step (launches, synchronisation)", device="layer_overhead")
inp("memory_reserve", "", "share of memory the runtime keeps", device="memory_reserve", fraction=True)
inp("interconnect_bandwidth", "byte/s", "scale-up fabric bandwidth per device and direction",
    device="interconnect.bandwidth")
inp("interconnect_latency", "s", "scale-up fabric latency per collective step", device="interconnect.latency")
inp("interconnect_domain", "", "devices sharing the scale-up fabric", device="interconnect.domain", assumption=False)
inp("network_bandwidth", "byte/s", "scale-out network bandwidth per device and direction", device="network.bandwidth")
inp("network_latency", "s", "scale-out network latency per message", device="network.latency")
inp("power", "W", "power draw of the device", device="power")
inp("reserved_discount", "", "committed-use discount on the hourly price", device="costs.reserved_discount",
    fraction=True)
inp("purchase", "USD", "purchase price per device", device="costs.purchase")
inp("amortisation", "s", "period over which the purchase is written off", device="costs.amortisation")
inp("electricity", "USD/J", "electricity price", device="costs.electricity")
inp("pue", "", "power usage effectiveness of the data centre", device="costs.pue")
inp("hosting", "USD/s", "hosting cost per device", device="costs.hosting")
inp("parameters", "", "model parameters", model="parameters", workload="parameters")
inp("active_parameters", "", "parameters used per token (mixture-of-experts)", model="active_parameters")
inp("layers", "", "transformer layers", model="layers", assumption=False)
inp("kv_heads", "", "key/value heads", model="kv_heads", assumption=False)
inp("head_dim", "", "dimension per head", model="head_dim", assumption=False)
inp("hidden", "", "hidden size", model="hidden", assumption=False)
inp("heads", "", "attention (query) heads", model="heads", assumption=False)
inp("intermediate", "", "feed-forward size", model="intermediate", assumption=False)
inp("vocab", "", "vocabulary size", model="vocab", assumption=False)
inp("experts", "", "routed experts per layer", model="experts", assumption=False)
inp("experts_per_token", "", "experts each token is routed to", model="experts_per_token", assumption=False)
inp("kv_lora_rank", "", "latent KV rank (multi-head latent attention)", model="kv_lora_rank", assumption=False)
inp("qk_rope_head_dim", "", "decoupled RoPE key dimension (multi-head latent attention)", model="qk_rope_head_dim",
    assumption=False)
inp("m", "", "rows of A and C", workload="m")
inp("n", "", "columns of B and C", workload="n")
inp("k", "", "inner dimension", workload="k")
inp("batch", "", "sequences processed together (decode step, forward batch, training step)", workload="batch")
inp("pipeline", "", "pipeline stages", workload="parallel.pipeline", assumption=False)
inp("tensor_given", "", "tensor-parallel ways, as given", workload="parallel.tensor", assumption=False)
inp("expert_parallel", "", "expert-parallel ways", workload="parallel.expert", assumption=False)
inp("data_given", "", "data-parallel ways, as given", workload="parallel.data", assumption=False)
inp("micro_batches", "", "pipeline micro-batches per training step", workload="parallel.micro_batches",
    assumption=False)
inp("sequence", "token", "tokens per training sequence", workload="sequence")
inp("deadline", "s", "time the training must finish in", workload="deadline")
inp("input_tokens", "token", "prompt tokens per request", workload="input_tokens")
inp("output_tokens", "token", "generated tokens per request", workload="output_tokens")
inp("tokens", "token", "tokens per request (forward) or training tokens (train)", workload="tokens")
inp("peak_traffic", "request/s", "peak arrival rate", workload="traffic.peak")
inp("average_traffic", "request/s", "average arrival rate", workload="traffic.average")
inp("utilisation", "", "average traffic as a share of the peak (of full use where no peak is given)",
    workload="traffic.utilisation", fraction=True)
inp("max_utilisation", "", "highest planned utilisation at the peak", workload="traffic.max_utilisation",
    fraction=True)
inp("redundancy", "", "extra replicas beyond the peak's need", workload="traffic.redundancy", assumption=False)
inp("per_token_target", "s", "per-token time target (p95)", workload="targets.per_token_p95")
inp("ttft_target", "s", "time to first token target (p95)", workload="targets.ttft_p95")
inp("latency_target", "s", "request latency target (p95)", workload="targets.latency_p95")
inp("job_items", "", "items in the bulk job", workload="batch_job.items")
inp("job_tokens", "token", "tokens per item of the bulk job", workload="batch_job.tokens")
inp("trainable", "", "trainable share of the parameters (LoRA)", workload="trainable", fraction=True)
inp("api_output_price", "USD/token", "hosted API price per output token", workload="api.output_price")
inp("api_input_price", "USD/token", "hosted API price per input token", workload="api.input_price",
    display="USD/Minput")
inp("api_ttft", "s", "the hosted API's stated time to first token (p95)", workload="api.ttft_p95", assumption=False)
inp("api_per_token", "s", "the hosted API's stated time per token (p95)", workload="api.per_token_p95",
    assumption=False)
# `devices` of a workload: the replica's devices when serving, the devices used when training (kinds.py).
inp("train_devices", "", "devices used for training", assumption=False)
inp("replica_devices", "", "devices serving one replica together", assumption=False)
# Values that follow from a choice (precision, optimizer).
inp("bytes_per_value", "byte", "bytes per value at the workload's precision", assumption=False)
inp("kv_bytes_per_value", "byte", "bytes per KV cache value", assumption=False)
inp("activation_bytes", "byte", "bytes per activation value sent between devices (16-bit at least)",
    assumption=False)
inp("state_bytes_per_parameter", "byte", "training state bytes per trainable parameter", assumption=False)
# Benchmark records, and a record's tie to the scenario's prediction of it.
inp("measured_throughput", "token/s", "measured output tokens per second")
inp("measured_price", "USD/s", "price per device-hour as recorded")
inp("prediction", "token/s", "the scenario's prediction for the recorded configuration", assumption=False)
inp("efficiency_now", "", "the device's compute efficiency in the scenario", fraction=True)
inp("bandwidth_efficiency_now", "", "the device's bandwidth efficiency in the scenario", fraction=True)
# Text inputs: choices the definitions branch on.
text_input("precision", "precision the workload's arithmetic runs at (fp16 or fp32 for a weight-only format)")
text_input("operands", "where a matrix product's operands live: host or device")
text_input("method", "training method: full or lora")
text_input("device_kind", "device class: cpu, gpu, tpu, npu or accelerator")
text_input("deployment", "where the device can be had: cloud, on-prem, edge")
text_input("basis", "cost basis forced by the scenario: rent, reserved or own (cheapest: the cheaper priced)")
text_input("replica", "single, multi or auto (training devices that follow from the state): whether a replica "
           "or a training job spans several devices")
text_input("recompute", "yes when activations are recomputed in the backward pass")
text_input("topology", "mesh when the scale-up fabric's bandwidth is links spread over the domain's devices")
text_input("tied", "yes when the model's output projection is its input embedding (tied_embeddings)")


# -- a decision's budget (bound by the engine from `decision.budget`, not read by any formula) ---------------
inp("budget_monthly", "USD", "most an option may cost per month", assumption=False)
inp("budget_capex", "USD", "most capital an option may need", assumption=False)
inp("budget_total", "USD", "most a training run may cost in all", assumption=False)
