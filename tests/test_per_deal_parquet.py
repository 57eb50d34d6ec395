"""The per-deal Parquet files (simulate --per-deal): policy names dictionary-encoded, the deal and
match numbers delta-encoded, zstd; pandas reads back exactly the table that was written."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from handsim.cli import cli
from handsim.stats.records import per_deal_parquet


def _encodings(data: bytes) -> dict:
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    out = {}
    for c in range(meta.num_columns):
        col = meta.row_group(0).column(c)
        out[col.path_in_schema] = (set(col.encodings), col.has_dictionary_page, col.compression)
    return out


def test_a_table_reads_back_equal_with_its_words_dictionary_encoded():
    n, P = 500, 4
    has = np.repeat(np.arange(n) % 9 == 8, P)
    cols = {
        "deal": np.repeat(np.arange(1000, 1000 + n, dtype=np.int64), P),
        "seat": np.tile(np.arange(P, dtype=np.int8), n),
        "policy": np.array(["hold-hand:bail_turn=4", "greedy", "greedy", "greedy"], dtype=object)[
            np.tile(np.arange(P), n)],
        "score": np.arange(n * P, dtype=np.int32) % 97,
        "opened": np.arange(n * P) % 3 > 0,
        "match": np.repeat(np.arange(n, dtype=np.int64) // 9, P),
        "total": pd.array(np.where(has, np.arange(n * P), 0), dtype="Int32"),
        "match_win": pd.array(np.where(has, np.arange(n * P) % 4 == 0, False), dtype="boolean"),
    }
    cols["total"][~has] = pd.NA
    cols["match_win"][~has] = pd.NA
    data = per_deal_parquet(cols)
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(data)), pd.DataFrame(cols))
    enc = _encodings(data)
    assert "RLE_DICTIONARY" in enc["policy"][0] and enc["policy"][1]  # each name once, then indices
    for name in ("deal", "match"):
        assert "DELTA_BINARY_PACKED" in enc[name][0] and not enc[name][1], (name, enc[name])
    assert {c for _, _, c in enc.values()} == {"ZSTD"}


@pytest.mark.parametrize("args", [
    ["--players", "3", "--rounds", "3", "--lineup", "hold-hand,greedy,greedy", "--deals", "8"],
    ["--preset", "russian", "--players", "3", "--lineup", "patient,greedy,greedy", "--deals", "12"],
])
def test_a_study_writes_its_per_deal_files_so(tmp_path, args):
    out = tmp_path / "s"
    r = CliRunner().invoke(cli, ["simulate", *args, "--per-deal", "--jobs", "1", "--no-progress", "-q",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    parts = sorted((out / "per_deal").glob("part-*.parquet"))
    assert parts
    for p in parts:
        data = p.read_bytes()
        df = pd.read_parquet(io.BytesIO(data))
        assert df["policy"].dtype != "category" and set(df["policy"]) <= {"hold-hand", "greedy", "patient"}
        enc = _encodings(data)
        assert "RLE_DICTIONARY" in enc["policy"][0] and "DELTA_BINARY_PACKED" in enc["deal"][0]
        assert df["deal"].dtype == np.int64 and df["seat"].dtype == np.int8
