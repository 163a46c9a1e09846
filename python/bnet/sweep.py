"""A sweep: one bnet run per (value, seed), several at once, each its own
process, the results in the order of the points."""

from concurrent.futures import ThreadPoolExecutor

from .command import set_pairs, run
from .error import BnetError


def sweep(scenario, key, values, *, seeds=(None,), command="run", jobs=1,
          set=None, args=(), bnet=None, timeout=None):
    """Run `scenario` with --set KEY=VALUE for each value, once per seed.

    Returns a list of results in point order (values outer, seeds inner),
    whatever order they finished in; each has "point": {"key", "value",
    "seed"} added (seed None: the scenario's own). jobs: bnet processes
    running at once. The first failing point (in order) raises its
    BnetError, with .point set; points not started are cancelled."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs!r}")
    base = set_pairs(set)
    points = [(v, s) for v in values for s in seeds]

    def one(point):
        value, seed = point
        try:
            result = run(scenario, seed=seed, set=base + [(key, value)], command=command,
                         args=args, bnet=bnet, timeout=timeout)
        except BnetError as e:
            e.point = {"key": key, "value": value, "seed": seed}
            raise
        result["point"] = {"key": key, "value": value, "seed": seed}
        return result

    if jobs == 1:
        return [one(p) for p in points]
    # threads suffice: each only waits for its bnet process
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one, p) for p in points]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise
