"""logicparse.resources: what names a loaded model in shard manifests and the service."""

from types import SimpleNamespace

from logicparse.resources import model_name


def test_a_model_is_named_with_the_precision_its_network_runs_in():
    """An int8 network gives some different trees, so a run or a service says which one made its
    labels."""
    assert model_name(SimpleNamespace(name="p", precision="int8"), "default") == "p (int8)"
    assert model_name(SimpleNamespace(name="p", precision="fp32"), "default") == "p"
    assert model_name(SimpleNamespace(name="p"), "default") == "p"  # a parser of one's own
    assert model_name(SimpleNamespace(), "default") == "default"
    assert model_name(None, "default") == "default" and model_name(None, None) is None
