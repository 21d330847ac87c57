"""The same training run on other device counts: the devices that hold the state, and every device of the whole
servers (scale-up domains) a run needs where servers are sold whole."""

from .expr import ceil, first_present, floor, if_given, maximum, nothing, where
from .graph import quantity
from .train_at import duration_at, layout_at
from .train_layout import shard, whole_replicas


@quantity("train", "devices_that_fit", "", "the fewest whole replicas that hold the state, and at least the devices "
          "used", label="Devices that hold the state (at least those used)", count=True)
def tr_devices_that_fit(q):
    # a number even where no count holds it (devices to fit 0: the devices used), so that the pieces of a long
    # formula over it never meet a blank; the time and cost on them are left blank there
    return maximum(whole_replicas(q, q.devices_to_fit), q.devices)


layout_at("fit", lambda q: q.devices_that_fit, "the devices that hold the state", "on the devices that hold the "
          "state", timed=True, count_words="devices_that_fit")


@quantity("train", "duration_that_fits", "s",
          "the same training on the devices that hold the state: the training time where they are the devices "
          "used, else laid out there as the devices used are: compute_for_fit + steps × step_for_fit; none where no "
          "count holds it",
          display="h", label="Training time on devices that hold the state")
def tr_duration_that_fits(q):
    return where(q.devices_to_fit > 0, duration_at(q, q.devices_that_fit, "fit"), nothing())


@quantity("train", "cost_that_fits", "USD",
          "the same training on the devices that hold the state: its training time × devices × hourly rate used",
          display="USD",
          label="Training cost on devices that hold the state")
def tr_cost_that_fits(q):
    return if_given(q.duration_that_fits * q.devices_that_fit * q.hourly_rate, q.hourly_rate, q.duration_that_fits)


@quantity("train", "whole_domain_devices", "", "devices in whole scale-up domains (servers): whole domains × devices "
          "per domain; the devices used where they are fewer than a domain", label="Devices in whole servers",
          count=True)
def tr_whole_domain_devices(q):
    return where(q.devices >= q.interconnect_domain, ceil(q.devices / q.interconnect_domain) * q.interconnect_domain,
                 q.devices)


@quantity("train", "whole_domain_working", "", "devices of the whole servers the run works on: the whole replicas "
          "(tensor × pipeline) among them, the rest idle; the devices used where the data-parallel ways are given",
          label="Devices working on whole servers", count=True)
def tr_whole_domain_working(q):
    return first_present(q.data_given * shard(q), floor(q.whole_domain_devices / shard(q)) * shard(q))


layout_at("servers", lambda q: q.whole_domain_working, "the whole servers' working devices", "on whole servers",
          timed=True, count_words="whole_domain_working")


@quantity("train", "duration_whole_domains", "s", "the same training on every device of the whole servers it "
          "needs (the devices used where they are fewer than a server): the training time where it fills them, else "
          "laid out there as the devices used are: compute_for_servers + steps × step_for_servers",
          display="h",
          label="Training time on whole servers")
def tr_duration_whole_domains(q):
    # on devices fewer than a domain (a TPU pod's), the devices used, as whole_domain_devices has them: the run itself
    # (a procurement reviewer read 128 devices in whole servers beside a training time there of n/a)
    return duration_at(q, q.whole_domain_working, "servers")


@quantity("train", "cost_whole_domains", "USD", "the same training on whole servers: its training time × their "
          "devices × hourly rate used, where the state fits", display="USD", label="Training cost on whole servers")
def tr_cost_whole_domains(q):
    return where(q.fits, if_given(q.duration_whole_domains * q.whole_domain_devices * q.hourly_rate, q.hourly_rate),
                 nothing())
