"""Reports at scale: `commerce-evals compare` and `gate` over a log folder of many samples.

    python benchmarks/report_scale.py [--samples 10000] [--models 2] [--judged] [--source LOG]
        [--folder DIR]

A real log is made once (checkout's cases under `commerce/reference`, one epoch, with
`commerce/judge` bound as the grader when --judged) unless --source names one; its samples are
copied, epoch after epoch, into one log per model (`commerce/model-i`), laid out as Inspect writes
an `.eval` file, until the folder holds --samples samples. Then each command runs as a user runs
it, in its own process (start-up included), and the time is printed, with the time of reading the
folder's verdicts against reading the logs whole (what the reports did before they read only the
fields they need). Issue 35 asks for compare and gate in under 30 s each at 10,000 samples on two
cores.
"""

from __future__ import annotations

import argparse
import math
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path


def source_log(folder: Path, judged: bool = False) -> Path:
    """A real log to copy: checkout's cases replayed by the reference model, judged by the
    scripted judge when asked (each verdict is a small key of the score's metadata, which the
    samples' summaries keep, so the reports open only the samples whose summaries fall short)."""
    from inspect_ai import eval

    from commerce_evals.checkout import checkout

    roles = {"grader": "commerce/judge"} if judged else None
    [log] = eval(
        checkout(),
        model="commerce/reference",
        model_roles=roles,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return Path(log.location)


def build_folder(source: Path, folder: Path, samples: int, models: int) -> int:
    """One log per model, its samples the source's repeated over epochs; the samples written.

    Inspect's write API serialises every sample afresh (minutes for 10,000), so the log is
    written as Inspect lays out an `.eval` file: each source sample is serialised once, with a
    marker where its epoch goes, and copied into the zip with the epoch filled in."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    log = read_eval_log(str(source))
    cases = sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch))
    summaries = {(str(s.id), s.epoch): s for s in read_eval_log_sample_summaries(str(source))}
    epochs = max(1, math.ceil(samples / models / len(cases)))
    marker = 987_654_321
    texts = [
        (
            case.id,
            case.model_copy(update={"epoch": marker}).model_dump_json(exclude_none=True),
            summaries[(str(case.id), case.epoch)]
            .model_copy(update={"epoch": marker})
            .model_dump_json(exclude_none=True),
        )
        for case in cases
    ]
    written = 0
    for index in range(models):
        header = log.model_copy(update={"samples": None})
        header.eval.model = f"commerce/model-{index + 1}"
        header.eval.config.epochs = epochs
        total = epochs * len(cases)
        if header.results is not None:
            header.results.total_samples = header.results.completed_samples = total
        with zipfile.ZipFile(
            folder / f"model-{index + 1}.eval", "w", zipfile.ZIP_DEFLATED, compresslevel=1
        ) as out:
            out.writestr("header.json", header.model_dump_json(exclude_none=True))
            out.writestr("reductions.json", "[]")
            listed = []
            for epoch in range(1, epochs + 1):
                for sample_id, text, summary in texts:
                    name = f"samples/{sample_id}_epoch_{epoch}.json"
                    out.writestr(name, text.replace(str(marker), str(epoch)))
                    listed.append(summary.replace(str(marker), str(epoch)))
            out.writestr("summaries.json", "[" + ",".join(listed) + "]")
        written += total
    return written


def timed(command: list[str]) -> tuple[float, float]:
    """The command's wall seconds and CPU seconds (user + system, its process and children):
    on a shared machine the CPU time is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # gate exits 1 when a threshold is missed: still a run
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def read_times(folder: Path) -> tuple[float, float]:
    """Seconds to read the folder's logs for their verdicts, and whole."""
    from commerce_evals.reports.logs import read_logs

    started = time.perf_counter()
    read_logs([folder], case_runs=True)
    verdicts = time.perf_counter() - started
    started = time.perf_counter()
    read_logs([folder], case_runs=True, whole=True)
    return verdicts, time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--models", type=int, default=2)
    parser.add_argument("--source", type=Path, help="a log to copy (default: run checkout)")
    parser.add_argument("--folder", type=Path, help="where the logs go (default: a temp folder)")
    parser.add_argument(
        "--judged", action="store_true", help="the source run has the scripted judge bound"
    )
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="report-scale-"))
    folder = args.folder or work / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        source = args.source or source_log(work / "source", args.judged)
        started = time.perf_counter()
        samples = build_folder(source, folder, args.samples, args.models)
        print(
            f"{samples} samples in {args.models} logs, written in "
            f"{time.perf_counter() - started:.1f} s: {folder}",
            flush=True,
        )
        cli = [sys.executable, "-m", "commerce_evals.cli.app"]
        figures = {"samples": float(samples)}
        compare = [*cli, "compare", str(folder), "--out", str(work / "compare")]
        gate = [*cli, "gate", str(folder), "--model", "commerce/model-1", "--set", "checkout"]
        figures["compare_s"], figures["compare_cpu_s"] = timed(compare)
        print(f"compare: {figures['compare_s']:.1f} s ({figures['compare_cpu_s']:.1f} s CPU)")
        figures["gate_s"], figures["gate_cpu_s"] = timed(gate)
        print(f"gate: {figures['gate_s']:.1f} s ({figures['gate_cpu_s']:.1f} s CPU)", flush=True)
        figures["read_verdicts_s"], figures["read_whole_s"] = read_times(folder)
        figures["whole_over_verdicts"] = figures["read_whole_s"] / figures["read_verdicts_s"]
        for name, value in figures.items():
            print(f"{name:>20}: {value:.2f}")
        return figures
    finally:
        if args.folder is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
