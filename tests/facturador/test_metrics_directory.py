"""Each node's request metrics have a folder of their own in the data directory (prometheus-client's
multiprocess mode): three nodes started at once on one data directory failed to start ("File exists")
when each emptied and made the same ``metrics/`` folder, and one would have wiped the others' figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from facturador.cli import metrics_directory


def test_nodes_on_one_data_directory_keep_their_own_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    first = metrics_directory(tmp_path, 8001)
    assert first is not None and first.is_dir()
    (first / "counter_123.db").write_bytes(b"figures of the first node")
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    second = metrics_directory(tmp_path, 8002)  # another node starting beside it
    assert second is not None and second != first and second.is_dir()
    assert (first / "counter_123.db").read_bytes() == b"figures of the first node"
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    again = metrics_directory(tmp_path, 8001)  # the first node restarted: its own old figures go
    assert again == first and list(first.iterdir()) == []


def test_an_operators_metrics_folder_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path / "mine"))
    assert metrics_directory(tmp_path / "data", 8000) is None
    assert not (tmp_path / "data").exists()
