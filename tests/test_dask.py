"""The neighbour engine on a Dask cluster gives the local engine's result, bit for bit."""

import json
import time

import numpy as np
import pytest

import privlib as pl
from privlib import PrivlibError
from privlib.neighbors import kneighbors

# an end-to-end audit, a cluster, a site or many draws: `make unit` leaves it out (`make test` runs it)
# without the `dask` extra every test is skipped (the fixture below)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("distributed")]


@pytest.fixture(scope="module")
def distributed():
    # imported when a test of this file runs, not when it is collected: `make unit` collects it
    # too, and distributed is a noticeable part of a collection's time
    return pytest.importorskip(
        "distributed", reason="the `dask` extra is not installed (pip install 'privlib[dask]')"
    )


#: Workers as threads of this process: these tests check results only, and such a cluster starts
#: in a second rather than in ten on a shared test machine. The scatter / map / gather path is
#: the same; worker processes (arrays pickled between processes) are checked by
#: ``benchmarks/audit_scale.py --dask``, which records that the results are identical.
PROCESSES = False
#: Starting a cluster can time out on a busy machine; it is tried this many times.
START_ATTEMPTS = 3


def start_cluster(distributed):
    """A LocalCluster of 2 one-thread workers, started again (after a pause) if a start times out.

    Generous comm timeouts and no worker time-to-live: under load a worker that answers late is
    slow, not lost, and must not be removed with the data scattered to it.
    """
    import dask

    settings = {
        "distributed.comm.timeouts.connect": "60s",
        "distributed.comm.timeouts.tcp": "120s",
        "distributed.scheduler.worker-ttl": None,
    }
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            with dask.config.set(settings):
                return distributed.LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=PROCESSES, dashboard_address=None
                )
        except (TimeoutError, OSError):
            if attempt == START_ATTEMPTS:
                raise
            time.sleep(2 * attempt)


@pytest.fixture(scope="module")
def client(distributed):
    with start_cluster(distributed) as cluster, distributed.Client(cluster, timeout="60s") as dask_client:
        yield dask_client


@pytest.fixture(scope="module")
def adult():
    frame = pl.load_dataset("adult")
    order = np.random.default_rng(0).permutation(len(frame))
    return frame.iloc[order[:1500]], frame.iloc[order[1500:5500]]


def test_cluster_search_is_identical_to_the_local_engine_on_adult(client, adult):
    query, reference = adult
    local = kneighbors(query, reference, k=3)
    # a small memory budget cuts both tables into several blocks: several tasks, and a reference
    # scattered in several parts
    remote = kneighbors(query, reference, k=3, client=client, max_memory_mb=0.15)
    assert np.array_equal(local.distances, remote.distances)
    assert np.array_equal(local.indices, remote.indices)


def test_a_bounded_search_on_the_cluster_is_identical(client, adult):
    query, reference = adult
    # each record's bound: the distance of its second nearest, so that rows end at the bound
    within = kneighbors(query, reference, k=2).distances[:, 1]
    local = kneighbors(query, reference, k=4, within=within)
    remote = kneighbors(query, reference, k=4, within=within, client=client, max_memory_mb=0.15)
    assert np.array_equal(local.distances, remote.distances)
    assert np.array_equal(local.indices, remote.indices)
    assert (local.indices[:, 1] >= 0).all()  # the second nearest lies within its own distance


def test_cluster_leave_one_out_and_l2_are_identical(client, adult):
    query, _ = adult
    local = kneighbors(query, query, k=2, exclude_self=True, metric="hamming")
    remote = kneighbors(
        query, query, k=2, exclude_self=True, metric="hamming", client=client, max_memory_mb=0.15
    )
    assert np.array_equal(local.indices, remote.indices) and np.array_equal(local.distances, remote.distances)
    numbers = query[["age", "hours-per-week", "education-num"]].to_numpy(float)
    local = kneighbors(numbers, numbers[::2], metric="l2")
    remote = kneighbors(numbers, numbers[::2], metric="l2", client=client)
    assert np.array_equal(local.indices, remote.indices) and np.array_equal(local.distances, remote.distances)


def test_a_reference_prepared_by_a_local_search_is_scattered_as_it_is(client, adult):
    query, reference = adult
    encoder = pl.schema.TableEncoder().fit(query, reference)
    fresh = kneighbors(query, reference, k=3, encoder=encoder, max_memory_mb=0.15)
    with pl.search_reuse.reuse_searches() as searches:
        kneighbors(query.iloc[:50], reference, encoder=encoder, max_memory_mb=0.15)
        remote = kneighbors(query, reference, k=3, encoder=encoder, client=client, max_memory_mb=0.15)
    assert (searches.references_kept, searches.references_reused) == (1, 1)
    assert np.array_equal(fresh.indices, remote.indices) and np.array_equal(fresh.distances, remote.distances)


def test_measures_pass_the_client_through(client, adult):
    query, reference = adult
    train, holdout, synthetic = reference.iloc[:1000], reference.iloc[1000:1500], query.iloc[:1000]
    local = pl.membership.nn_mia(train=train, holdout=holdout, synthetic=synthetic)
    remote = pl.membership.nn_mia(train=train, holdout=holdout, synthetic=synthetic, client=client)
    assert np.array_equal(local.dcr, remote.dcr)
    keys = ["age", "sex", "race"]
    local = pl.attribute.knn_risk(train=train, synthetic=synthetic, keys=keys, target="income")
    remote = pl.attribute.knn_risk(
        train=train, synthetic=synthetic, keys=keys, target="income", client=client
    )
    assert np.array_equal(local.per_record, remote.per_record)
    assert np.array_equal(local.per_record_original, remote.per_record_original)


def test_client_must_be_a_dask_client(adult):
    query, reference = adult
    with pytest.raises(PrivlibError, match="`client`"):
        kneighbors(query.iloc[:5], reference.iloc[:5], client="tcp://127.0.0.1:8786")


def test_the_audit_passes_its_client_to_the_engine_measures(client, adult, tmp_path):
    from privlib.audit import CATALOGUE, Audit, AuditSpec, load_audit_inputs

    train, rest = adult
    paths = {}
    for name, table in (
        ("train", train.iloc[:400]),
        ("holdout", rest.iloc[:400]),
        ("synthetic", rest.iloc[400:800]),
    ):
        paths[name] = tmp_path / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    inputs = load_audit_inputs(train=paths["train"], synthetic=paths["synthetic"], holdout=paths["holdout"])
    spec = AuditSpec(train=paths["train"], synthetic=[paths["synthetic"]], holdout=paths["holdout"])
    chosen = tuple(
        entry for entry in CATALOGUE if entry.key in ("dcr_zero_share", "nn_mia_auc", "dcr_holdout_share")
    )
    local = Audit(inputs, spec, catalogue=chosen).run()
    remote = Audit(inputs, spec, catalogue=chosen, client=client).run()
    assert [m.model_dump(exclude={"seconds"}) for m in remote.measures] == [
        m.model_dump(exclude={"seconds"}) for m in local.measures
    ]
    assert len(remote.measures) == 3
    # an object that is not a client is refused before any measure runs
    with pytest.raises(PrivlibError, match="`client` must be a dask.distributed.Client"):
        Audit(inputs, spec, catalogue=chosen, client=object())


def test_the_whole_audit_on_a_cluster_gives_the_local_metrics(client, adult, tmp_path):
    # every measure of the catalogue, with the engine's searches on the cluster where a measure
    # takes a client: the metrics (all but run times) are the local run's, value for value
    from privlib.audit import Audit, AuditSpec, comparable_metrics, load_audit_inputs

    train, rest = adult
    paths = {}
    for name, table in (
        ("train", train.iloc[:300]),
        ("holdout", rest.iloc[:200]),
        ("synthetic", rest.iloc[200:500]),
    ):
        paths[name] = tmp_path / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    inputs = load_audit_inputs(
        train=paths["train"],
        synthetic=paths["synthetic"],
        holdout=paths["holdout"],
        population_size=3000,
        keys=["age", "sex", "race"],
        sensitive=["income"],
    )
    spec = AuditSpec(
        train=paths["train"],
        synthetic=[paths["synthetic"]],
        holdout=paths["holdout"],
        population_size=3000,
        keys=["age", "sex", "race"],
        sensitive=["income"],
    )
    local = Audit(inputs, spec).run()
    remote = Audit(inputs, spec, client=client).run()

    def metrics(report):  # as text, so that a NaN equals a NaN
        return json.dumps(comparable_metrics(json.loads(report.to_json())), sort_keys=True, default=str)

    assert metrics(remote) == metrics(local)
    engine_measures = {
        "dcr_zero_share",
        "knn_risk_accuracy[income]",
        "dcr_holdout_share",
        "threshold_attack_precision",
        "nn_mia_auc",
        "adversarial_accuracy",
        "privacy_loss",
    }
    assert engine_measures <= {m.key for m in remote.measures}
