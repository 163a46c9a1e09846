"""Tests of the bnet Python package against the real command ($BNET, else
PATH). Every run is shrunk to a k=4 fabric and small messages, so each bnet
call takes well under a second (compare about 1.5 s)."""

import importlib.metadata
import importlib.util
import os
import re
import sys
import unittest
from pathlib import Path
from unittest import mock

import bnet
from bnet import scenario as sc

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
# A 4-GPU-per-leaf fabric without NVLink: what tests/cli/test_compare.sh uses
SMALL = {"topology.kind": "leaf_spine", "topology.k": 4, "scale_up.domain_gpus": 0}
SMALL_COLL = {**SMALL, "coll.min_bytes": "1K", "coll.max_bytes": "16K"}
SMALL_RUN = {"topology": {"kind": "leaf_spine", "k": 4},
             "workload": {"kind": "permutation", "message_bytes": "100KB"}}

HAVE_PANDAS = importlib.util.find_spec("pandas") is not None


class TestScenarioText(unittest.TestCase):
    def test_plain_and_quoted(self):
        text = sc.to_yaml({"a": "1MB", "b": "tor0 agg1", "c": True, "d": 0.5, "e": "a: b"})
        # "1MB" plain (an int with its suffix, as in YAML); "a: b" quoted
        self.assertEqual(text, "a: 1MB\nb: tor0 agg1\nc: true\nd: 0.5\ne: 'a: b'\n")
        self.assertEqual(sc.set_text(True), "true")
        self.assertEqual(sc.set_text(0.5), "0.5")

    def test_dotted_keys_nest(self):
        self.assertEqual(sc.nest({"link.rate_gbps": 400, "link": {"fabric_rate_gbps": 800}}),
                         {"link": {"rate_gbps": 400, "fabric_rate_gbps": 800}})
        with self.assertRaises(ValueError):
            sc.nest({"link": 1, "link.rate_gbps": 2})

    def test_lists_of_mappings(self):
        text = sc.to_yaml({"jobs": [{"name": "a", "x": {"y": 1}}, {"name": "b"}], "nic": {}})
        self.assertEqual(text, "jobs:\n- name: a\n  x:\n    y: 1\n- name: b\nnic: {}\n")


class TestCommand(unittest.TestCase):
    def test_version(self):
        printed = bnet.version()
        self.assertRegex(printed, r"^bnet \d+\.\d+\.\d+")
        cmake = re.search(r"project\(bnet VERSION (\S+)", (REPO / "CMakeLists.txt").read_text())
        self.assertEqual(printed.split()[1], cmake.group(1))
        try:
            installed = importlib.metadata.version("bnet")
        except importlib.metadata.PackageNotFoundError:
            self.skipTest("the package is not installed: no metadata to compare")
        self.assertEqual(installed, printed.split()[1], "python/pyproject.toml's version")

    def test_dunder_version(self):
        """bnet.__version__ is the command's version (PEP 396's attribute)."""
        self.assertIn("__version__", bnet.__all__)
        self.assertRegex(bnet.__version__, r"^\d+\.\d+\.\d+$")
        self.assertEqual(bnet.__version__, bnet.version().split()[1])

    def test_keys_and_presets(self):
        keys = bnet.keys()
        self.assertIn("link.rate_gbps", {k["path"] for k in keys})
        self.assertIn("ib-ndr", {p["name"] for p in bnet.presets()})

    def test_dict_scenario(self):
        r = bnet.run(SMALL_RUN)
        self.assertEqual(r["scenario"], "<dict>")
        self.assertNotIn("scenario.yaml", r["command"])
        self.assertEqual(r["config"]["topology.kind"], "leaf_spine")
        self.assertEqual(r["config"]["workload.message_bytes"], 100000)
        self.assertEqual(len(r["flows"]), r["topology"]["hosts"])

    def test_dict_jobs_list(self):
        r = bnet.job({**SMALL, "jobs": [{"name": "tiny", "tp": 1, "dp": 8, "layers": 1,
                                         "seq_len": 256, "hidden": 512, "ffn_hidden": 1024,
                                         "vocab": 1000, "global_batch": 8}]})
        self.assertEqual([j["name"] for j in r["jobs"]], ["tiny"])
        self.assertGreater(r["jobs"][0]["iteration_us"], 0)

    def test_dict_relative_file_from_cwd(self):
        cwd = os.getcwd()
        os.chdir(REPO)
        try:
            r = bnet.run({"topology": {"kind": "file", "file": "scenarios/fabric_small.topo"},
                          "workload": {"message_bytes": 100000}})
        finally:
            os.chdir(cwd)
        self.assertEqual(r["topology"]["kind"], "file")

    def test_path_scenario(self):
        path = SCENARIOS / "leaf_spine_incast.yaml"
        r = bnet.run(path, set={"topology.k": 4, "workload.incast_senders": 4,
                                "workload.message_bytes": "100KB"})
        self.assertEqual(r["scenario"], str(path))
        self.assertEqual(r["workload"], "incast")
        self.assertEqual(r["summary"]["flows"], 4)

    def test_set_changes_result(self):
        slow = bnet.run(SMALL_RUN, set={"link.rate_gbps": 100})
        fast = bnet.run(SMALL_RUN, set={"link.rate_gbps": 400})
        self.assertEqual(fast["config"]["link.rate_gbps"], 400.0)
        self.assertLess(fast["summary"]["fct_us"]["p50"], slow["summary"]["fct_us"]["p50"])

    def test_seed_determinism(self):
        a = bnet.run(SMALL_RUN, seed=5, args=["--reproducible"])
        self.assertEqual(a, bnet.run(SMALL_RUN, seed=5, args=["--reproducible"]))
        other = bnet.run(SMALL_RUN, seed=6, args=["--reproducible"])
        self.assertEqual(other["seed"], 6)
        self.assertNotEqual([(f["src"], f["dst"]) for f in a["flows"]],
                            [(f["src"], f["dst"]) for f in other["flows"]])
        self.assertEqual(bnet.coll(seed=5, set=SMALL_COLL), bnet.coll(seed=5, set=SMALL_COLL))

    def test_bad_key(self):
        with self.assertRaises(bnet.BnetError) as e:
            bnet.run({"link": {"rate": 5}})
        self.assertEqual(e.exception.status, 2)
        self.assertIn("'link.rate'", e.exception.message)
        self.assertIn("<dict>:", e.exception.message)  # not the temporary file's name
        with self.assertRaises(bnet.BnetError) as e:
            bnet.run(set={"topology.kk": 4})
        self.assertEqual(e.exception.status, 2)
        self.assertIn("topology.kk", e.exception.message)

    def test_faults_fail_flows(self):
        # a NIC down from 1 us, given up on after about 1 ms: exit 3, the JSON kept
        with self.assertRaises(bnet.BnetError) as e:
            bnet.run({**SMALL_RUN, "nic": {"ack_timeout": 5},
                      "faults": [{"kind": "nic_down", "target": "host3", "at_us": 1}]})
        self.assertEqual(e.exception.status, 3)
        self.assertGreater(e.exception.result["summary"]["flows_failed"], 0)
        self.assertIn("faults", e.exception.message)

    def test_bad_flag_for_command(self):
        with self.assertRaises(bnet.BnetError) as e:
            bnet.topo(args=["--quiet"])  # bnet topo takes no --quiet
        self.assertEqual(e.exception.status, 2)
        self.assertIn("--quiet", e.exception.message)

    def test_topo_takes_seed(self):
        self.assertEqual(bnet.topo(seed=7)["topology"]["kind"], "fat_tree")

    def test_finding_bnet(self):
        real = bnet.find()  # from $BNET or PATH
        with self.assertRaises(FileNotFoundError):
            bnet.version(bnet="/nonexistent/bnet")
        with mock.patch.dict(os.environ, {"BNET": "/nonexistent/bnet"}):
            with self.assertRaises(FileNotFoundError):
                bnet.version()
            self.assertTrue(bnet.version(bnet=real))  # the argument comes first
        with mock.patch.dict(os.environ, {"BNET": real, "PATH": ""}):
            self.assertTrue(bnet.version())

    def test_other_commands(self):
        t = bnet.topo(set=SMALL)
        self.assertEqual(t["topology"]["hosts"], 8)
        p = bnet.p2p(set={"p2p.test": "write_bw"}, args=["-s", "4096", "-n", "100"])
        self.assertEqual(p["pairs"][0]["rows"][0]["bytes"], 4096)
        c = bnet.compare(set=SMALL, args=["--fabrics", "ib-ndr", "-j", "1"])
        self.assertEqual([f["fabric"] for f in c["fabrics"]], ["ib-ndr"])


class TestSweep(unittest.TestCase):
    def test_order_and_points(self):
        values = [100, 200, 400]
        kw = dict(seeds=(1, 2), set=SMALL_COLL, command="coll")
        one = bnet.sweep(None, "link.rate_gbps", values, jobs=1, **kw)
        two = bnet.sweep(None, "link.rate_gbps", values, jobs=2, **kw)
        self.assertEqual(one, two)
        self.assertEqual([(r["point"]["value"], r["point"]["seed"]) for r in one],
                         [(v, s) for v in values for s in (1, 2)])
        self.assertEqual([r["config"]["link.rate_gbps"] for r in one], [100.0] * 2 + [200.0] * 2 + [400.0] * 2)

    def test_failing_point(self):
        with self.assertRaises(bnet.BnetError) as e:
            bnet.sweep(SMALL_RUN, "link.rate_gbps", [100, -1], jobs=2)
        self.assertEqual(e.exception.status, 2)
        self.assertEqual(e.exception.point["value"], -1)


@unittest.skipUnless(HAVE_PANDAS, "pandas is not installed")
class TestDataFrame(unittest.TestCase):
    def test_default_tables(self):
        r = bnet.run(SMALL_RUN)
        self.assertEqual(len(bnet.to_dataframe(r)), len(r["flows"]))
        self.assertEqual(len(bnet.to_dataframe(r, "ports")), len(r["ports"]))
        c = bnet.coll(set=SMALL_COLL)
        df = bnet.to_dataframe(c)
        self.assertEqual(len(df), len(c["rows"]))
        self.assertEqual(list(df["size"]), [row["size"] for row in c["rows"]])

    def test_nested_table(self):
        p = bnet.p2p(args=["-n", "100"])
        df = bnet.to_dataframe(p)
        self.assertEqual(len(df), sum(len(pair["rows"]) for pair in p["pairs"]))
        self.assertIn("pairs.src", df.columns)

    def test_sweep(self):
        results = bnet.sweep(None, "coll.max_bytes", ["4K", "16K"], command="coll",
                             set=SMALL_COLL, jobs=2)
        summary = bnet.to_dataframe(results)
        self.assertEqual(len(summary), 2)
        self.assertEqual(list(summary["point.value"]), ["4K", "16K"])
        rows = bnet.to_dataframe(results, table="rows")
        self.assertEqual(len(rows), sum(len(r["rows"]) for r in results))


class TestWithoutPandas(unittest.TestCase):
    def test_import_error(self):
        with mock.patch.dict(sys.modules, {"pandas": None}):
            with self.assertRaises(ImportError) as e:
                bnet.to_dataframe({"command": "bnet run", "flows": []})
        self.assertIn("pandas", str(e.exception))


if __name__ == "__main__":
    unittest.main()
