import pytest

from fastload_constructs.core.catalog import CATALOG, lookup
from fastload_constructs.core.errors import FastloadConfigError

REQUIRED_FAMILIES = {"g5", "g6", "g6e", "g7e", "p4d", "p4de", "p5", "p5e", "p5en"}


def test_catalog_covers_the_families_vllm_runs_on():
    families = {i.family for i in CATALOG.values()}
    assert families >= REQUIRED_FAMILIES
    for family in ("g5", "g6", "g6e", "g7e"):
        assert sum(1 for i in CATALOG.values() if i.family == family) >= 4


def test_lookup_returns_the_published_facts():
    g6e = lookup("g6e.12xlarge")
    # The EC2 API's GPU memory: 45,776 MiB per L40S, not the 48 GB on the box.
    assert (g6e.gpu_model, g6e.gpu_count, g6e.gpu_memory_mib) == ("L40S", 4, 45776)
    assert (g6e.vcpu, g6e.memory_gib, g6e.network_gbps) == (48, 384, 100)
    assert (g6e.nvme_count, g6e.nvme_gb_each, g6e.instance_store_gb) == (2, 1900, 3800)
    assert g6e.cuda_capability == "8.9"
    p5 = lookup("p5.48xlarge")
    assert (p5.gpu_model, p5.gpu_count, p5.gpu_memory_gib, p5.network_gbps) == ("H100", 8, 80, 3200)
    assert p5.nvme_count * p5.nvme_gb_each == 8 * 3800


def test_lookup_is_forgiving_about_case_and_spaces():
    assert lookup(" G5.XLarge ").name == "g5.xlarge"


def test_burst_sizes_keep_their_published_baseline():
    assert lookup("g5.xlarge").network_burst is True
    assert lookup("g5.xlarge").sustained_network_gbps == 2.5
    assert lookup("g5.xlarge").pod_burst_gbps == 10
    assert lookup("g5.48xlarge").sustained_network_gbps == 100
    # Baselines are not a fixed fraction of the burst: g4dn.xlarge 5 of 25, g6e.xlarge 2.5 of 20.
    assert lookup("g4dn.xlarge").sustained_network_gbps == 5
    assert lookup("g6e.xlarge").sustained_network_gbps == 2.5


def test_multi_card_types_cap_one_pod_at_the_primary_card():
    for name, card in (("p4d.24xlarge", 100), ("p5.48xlarge", 100), ("p5en.48xlarge", 200), ("g6e.48xlarge", 100)):
        inst = lookup(name)
        assert inst.network_gbps > card and inst.pod_network_gbps == card, name
    assert lookup("g6e.12xlarge").pod_network_gbps == 100


def test_instance_without_instance_store_is_marked():
    p3 = lookup("p3.8xlarge")
    assert not p3.has_instance_store and p3.instance_store_gb == 0
    assert all(i.has_instance_store for i in CATALOG.values() if i.family != "p3")


def test_every_entry_is_self_consistent():
    for name, inst in CATALOG.items():
        assert name == inst.name
        assert inst.gpu_count >= 1 and inst.vcpu >= 4 and inst.memory_gib > 0
        assert inst.vcpu % inst.gpu_count == 0, name
        assert inst.cuda_capability.count(".") == 1


def test_unknown_type_names_the_closest_known_ones():
    with pytest.raises(FastloadConfigError) as err:
        lookup("g6e.13xlarge")
    message = str(err.value)
    assert err.value.field == "instance_type"
    assert "g6e.12xlarge" in message and "g6e.13xlarge" in message


def test_unknown_type_with_custom_field_name():
    with pytest.raises(FastloadConfigError, match=r"^nodeGroup.instanceType: got 'm5.large'"):
        lookup("m5.large", field="nodeGroup.instanceType")
