"""planner.meaning.read_model on saved designs: the communication estimate of a described job on
the design and its alternatives, in the design's own catalog snapshot; bad jobs named field by
field.
Real seed catalog, real engine; every figure computed by hand beside its assertion."""

import math
from decimal import Decimal

import pytest
from django.utils import translation

from catalog.models import LifecycleChoices, Price, Product
from planner import services
from planner.meaning import read_model as meaning
from tests.conftest import load_seed_catalog

# 1,024 GPUs = 128 servers x 8 rails, 64x400 leaves. At 3:1 a leaf has 48 server ports and 16
# uplinks; at 1:1, 32 and 32.
RAIL_1024 = {"gpus": 1024, "gpus_per_server": 8, "rails": 8, "nic_speed": 400, "fabric": "rail",
             "leaf": "64x400", "oversubscription": "3:1"}  # fmt: skip
# 70B parameters, tensor 8 inside each server, data parallel 1024 / 8 = 128, optimizer sharded
# (ReduceScatter + AllGather of the gradients), no model shape: gradient traffic only.
JOB_70B = {"parameters": "70B", "tensor_parallel": 8, "sharding": "optimizer",
           "compute_seconds_per_step": 5}  # fmt: skip
# Per GPU: 70e9 / 8 parameters x 2 bytes = 17.5 GB; bus factor 2 x 127/128 = 1.984375; one
# member of the 128-rank group in each server, on its one 400G NIC at 0.95: 47.5 GB/s.
GRADIENT_SECONDS_1_1 = 17.5e9 * 1.984375 / 47.5e9  # = 0.731086 s


@pytest.fixture
def catalog(db):
    load_seed_catalog()


@pytest.fixture
def design(catalog, engineer):
    return services.design_create(owner=engineer, name="1,024 GPUs", request_data=RAIL_1024)


def test_a_1024_gpu_job_on_the_design_and_each_alternative(design):
    job = meaning.job_parse(data=JOB_70B, design=design)
    # GPUs default to the design's; data parallel is what tensor x pipeline leaves.
    assert (job.gpus, job.data_parallel) == (1024, 128)
    found = meaning.design_meaning(design=design, job=job)
    est = found.estimate
    assert est is not None
    # The 128 data-parallel ranks span all 4 units of 32 servers: the traffic climbs to the
    # spines. Placed in cabling order the ring leaves each unit on one hop: the NICs' 0.731 s.
    # The bound, every member sharing the 3:1 leaf uplinks, a third of the 47.5 GB/s each:
    # 3 x 0.731 = 2.193 s.
    assert est.leaf_oversubscription == pytest.approx(3.0)
    assert est.bandwidth_seconds_per_step == pytest.approx(GRADIENT_SECONDS_1_1, rel=1e-6)
    assert est.bandwidth_bound_seconds_per_step == pytest.approx(3 * GRADIENT_SECONDS_1_1, rel=1e-6)
    assert est.bandwidth_bound_seconds_per_step == pytest.approx(2.193257, abs=1e-6)
    assert (est.bottleneck, est.bottleneck_tier) == ("data_parallel", "spine")
    # Of the stated 5 s of compute: 0.731 / 5 = 14.6 %.
    assert est.share_of_compute == pytest.approx(est.seconds_per_step / 5)
    design_option = found.options[0]
    assert design_option.is_design
    assert design_option.estimate is est
    alternatives = found.options[1:]
    assert alternatives, "a 3:1 ceiling leaves 1:1 and 2:1 designs to compare"
    for option in alternatives:
        other = option.estimate
        assert other is not None
        # Data-parallel traffic crosses the leaf uplinks on every option: in cabling order at
        # the NICs' speed on each; the bound scales with the leaf ratio.
        assert other.bandwidth_seconds_per_step == pytest.approx(GRADIENT_SECONDS_1_1, rel=1e-6)
        assert other.bandwidth_bound_seconds_per_step == pytest.approx(
            GRADIENT_SECONDS_1_1 * other.leaf_oversubscription, rel=1e-6
        )
        assert option.comparison is not None
        added = other.seconds_per_step - est.seconds_per_step
        assert option.comparison.seconds_added == pytest.approx(added)
        assert f"{abs(added):.3g} s per step" in option.comparison_text
        saving = design_option.cost - option.cost
        assert f"{abs(saving):,.2f} {found.currency}" in option.comparison_text
        word = "saves" if saving >= 0 else "costs"
        assert option.comparison_text.startswith(f"The {option.label} option {word} ")
    fastest = min(alternatives, key=lambda o: o.estimate.bandwidth_bound_seconds_per_step)
    # A 1:1 alternative: bound 0.731 s, 1.462 s less than this design's; the estimates agree.
    assert fastest.estimate.bandwidth_bound_seconds_per_step == pytest.approx(
        GRADIENT_SECONDS_1_1, rel=1e-6
    )
    # NCCL's bound differs from the bandwidth-only one by latency and algorithm: the text says
    # NCCL's figure.
    less = est.bound_seconds_per_step - fastest.estimate.bound_seconds_per_step
    assert fastest.comparison_text.endswith(f"{less:.3g} s per step less.")


def test_a_16384_gpu_job_is_three_times_longer_at_3_to_1_and_reaches_the_cores(catalog, engineer):
    request = {**RAIL_1024, "gpus": 16384, "oversubscription": "1:1"}
    design = services.design_create(owner=engineer, name="16k", request_data=request)
    job = meaning.job_parse(data={"parameters": "405B", "tensor_parallel": 8,
                                  "pipeline_parallel": 16, "sharding": "optimizer"},
                            design=design)  # fmt: skip
    # Data parallel 16,384 / (8 x 16) = 128; per GPU 405e9 / 128 x 2 bytes = 6.328 GB.
    assert job.data_parallel == 128
    est = meaning.design_meaning(design=design, job=job, with_alternatives=False).estimate
    gradient = est.collective("data_parallel")
    assert gradient.bytes_per_gpu == round(405e9 / 128 * 2)
    # At 1:1 everywhere the bus is the NIC's 47.5 GB/s: 6.328e9 x 1.984375 / 47.5e9 = 0.2644 s.
    assert est.bandwidth_seconds_per_step == pytest.approx(
        405e9 / 128 * 2 * 1.984375 / 47.5e9, rel=1e-6
    )
    assert est.bandwidth_seconds_per_step == pytest.approx(0.26436, abs=1e-5)
    # NCCL's model adds each bucket's latency (ring, one rank a server): within 1.5 x.
    assert 0.26436 < est.seconds_per_step < 1.5 * 0.26436


def test_bad_jobs_name_the_field_and_the_numbers(design):
    with pytest.raises(meaning.JobInvalid) as caught:
        meaning.job_parse(data={**JOB_70B, "data_parallel": 100}, design=design)
    assert "8 x 1 x 100 = 800, not the 1,024 GPUs" in caught.value.errors["data_parallel"]
    with pytest.raises(meaning.JobInvalid) as caught:
        meaning.job_parse(data={**JOB_70B, "tensor_parallel": -2}, design=design)
    assert "between 1 and" in caught.value.errors["tensor_parallel"]
    assert "-2" in caught.value.errors["tensor_parallel"]
    # 70B unsharded at tensor 8: 70e9 / 8 x 16 bytes = 140 GB a GPU, more than 80 GB.
    with pytest.raises(meaning.JobInvalid) as caught:
        meaning.job_parse(data={**JOB_70B, "sharding": "none"}, design=design)
    assert "need 140 GB" in caught.value.errors["parameters"]
    assert "the 80 GB of each GPU" in caught.value.errors["parameters"]
    # More GPUs than the design has.
    job = meaning.job_parse(data={**JOB_70B, "gpus": 2048}, design=design)
    with pytest.raises(meaning.JobInvalid) as caught:
        meaning.design_meaning(design=design, job=job)
    assert caught.value.errors["gpus"] == "The job's 2,048 GPUs do not fit the design's 1,024."


def test_the_figures_stay_as_sized_when_the_catalog_changes(
    design, django_capture_on_commit_callbacks
):
    before = meaning.design_meaning(design=design, job=None, with_alternatives=False)
    leaf = next(line.sku for line in design.typed_result.bom if line.category == "switch")
    with django_capture_on_commit_callbacks(execute=True):
        Product.objects.filter(sku=leaf).update(lifecycle=LifecycleChoices.END_OF_SALE)
        Price.objects.filter(product__sku=leaf).update(amount=Decimal("9999999.00"))
    after = meaning.design_meaning(design=design, job=None, with_alternatives=False)
    # Cost, spares and growth read the snapshot the design was sized with.
    assert after.options[0].cost == before.options[0].cost
    assert after.failures.spares_total == before.failures.spares_total
    assert [r["cost"] for r in after.growth_rows] == [r["cost"] for r in before.growth_rows]


def test_failures_and_spares_of_the_1024_gpu_design(design):
    found = meaning.design_meaning(design=design, job=None, with_alternatives=False)
    assert found.estimate is None
    report = found.failures
    counts = {(r.component, r.tier): r.count for r in report.rates}
    # Llama 3: 7 NIC failures / (16,384 x 54 days) x 30.44 days; 35 switch-or-cable failures
    # over 36,133 devices x 54 days x 30.44 days (engine.failures' reading).
    nic = 7 / (16384 * 54) * 365.25 / 12
    device = 35 / ((1024 + 16384 + 16384 + 2341) * 54) * 365.25 / 12
    devices = sum(n for (component, _tier), n in counts.items() if component != "nic")
    assert report.network_per_month == pytest.approx(
        counts[("nic", "server")] * nic + devices * device
    )
    for spare in report.spares:
        share = {"switch": Decimal("0.02"), "transceiver": Decimal("0.03"),
                 "cable": Decimal("0.02")}[spare.category]  # fmt: skip
        assert spare.quantity == max(1, math.ceil(spare.installed * share))
    with translation.override("en"):
        assert found.effects[0]["label"] == "a server-to-leaf link"
