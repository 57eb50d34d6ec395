"""The dask.distributed executor (for studies that outgrow one machine) gives the same results as
the local process pool."""

import pytest

pytest.importorskip("dask.distributed")


def test_dask_local_cluster_matches_inline():
    from handsim.simulate import make_spec, run_study

    spec = make_spec(vary={"opening_threshold": [51, 71]}, lineups=["hold-hand,greedy,greedy"], players=3,
                     deals=300, seed=4, chunk=70)
    inline = run_study(spec, jobs=1, executor="inline").summary
    dask = run_study(spec, jobs=2, executor="dask").summary
    assert inline.to_csv(index=False) == dask.to_csv(index=False)
    assert int(inline["rounds"].iloc[0]) > 0


def test_tournament_on_a_dask_cluster_matches_inline():
    from handsim.tournament import make_tournament, run_tournament

    spec = make_tournament(["greedy", "hold-hand", "random"], players=3, deals=60, seed=4, chunk=25)
    inline = run_tournament(spec, jobs=1, executor="inline").frames()
    dask = run_tournament(spec, jobs=2, executor="dask").frames()
    for name in ("crosstable", "ratings", "tables"):
        assert inline[name].to_csv(index=False) == dask[name].to_csv(index=False), name
