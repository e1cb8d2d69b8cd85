"""The Markdown report and the PNG plots of a benchmark run, beside the thesis figures."""

from __future__ import annotations

from pathlib import Path

from benchmarks.reference import KB, MB, PAPER, RERUN, check_targets


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "bytes":
        if value >= MB:
            return f"{value / MB:.2f} MB"
        if value >= 10 * KB:
            return f"{value / KB:.0f} KB"
        return f"{value:.0f} B"
    if unit == "ms":
        return f"{value:.2f} ms" if value < 10 else f"{value:.0f} ms"
    if unit == "s":
        return f"{value:.1f} s"
    if unit == "share":
        return f"{value * 100:.1f} %"
    return f"{value:.0f}"


def _ratio(ref: float | None, ours: float | None) -> str:
    if ref is None or ours is None or ours == 0:
        return "–"
    return f"{ref / ours:.1f}×"


ROWS = (
    ("commits per game", "commits_per_game", ""),
    (".git on disk per game (`du -sk`, as the game leaves it)", "disk_bytes_per_game", "bytes"),
    (".git on disk per commit", "disk_bytes_per_commit", "bytes"),
    ("after `git gc --aggressive` (`du -sk`)", "packed_bytes_per_game", "bytes"),
    ("pack after `git gc --aggressive`", "pack_bytes_per_game", "bytes"),
    ("packed bytes per commit", "packed_bytes_per_commit", "bytes"),
    (
        "... of which commit objects (message, SSH signature)",
        "packed_commit_bytes_per_commit",
        "bytes",
    ),
    ("... of which trees", "packed_tree_bytes_per_commit", "bytes"),
    ("... of which files (blobs)", "packed_blob_bytes_per_commit", "bytes"),
    ("mean diff per action (`git diff parent child`)", "mean_diff_bytes", "bytes"),
    ("development cards drawn (all games)", "draws", ""),
    ("extra commits per draw (shares ride on the next rolls)", "extra_commits_per_draw", ""),
    ("extra round trips per draw", "extra_round_trips_per_draw", ""),
    ("steals (all games)", "steals", ""),
    ("extra commits per steal (the victim's answer, the merge)", "extra_commits_per_steal", ""),
    ("extra round trips per steal (mover -> victim -> mover)", "extra_round_trips_per_steal", ""),
    ("commits after the game (deck secrets)", "commits_after_the_game", ""),
    ("empty diffs", "empty_diff_share", "share"),
    ("compute per commit (engine + recording), median", "compute_ms_per_commit", "ms"),
    (
        "hot-seat sync per commit (every other local seat fast-forwards), median",
        "sync_ms_per_commit_hotseat",
        "ms",
    ),
    (
        "networked sync round, bare remote on disk (fetch + verify + push), median",
        "sync_ms_per_round_remote",
        "ms",
    ),
    ("networked sync round, `git daemon` on 127.0.0.1, median", "sync_ms_per_round_daemon", "ms"),
    ("whole game (hot-seat, all peers)", "game_seconds", "s"),
)


# Long on purpose (about 160 lines): the report's text, top to bottom, as it reads.
def write_report(r: dict, path: Path, plots: list[str]) -> None:
    m = r["machine"]
    out = [
        "# catan_p2p benchmark: the thesis evaluation, reproduced",
        "",
        f"Produced by `{r['command']}` ({r['mode']} mode) on {r['started_utc']}, "
        f"{r['seconds']:.0f} s.",
        "",
        f"Machine: {m['cpu']}, {m['cpus']} CPUs, {m['memory']}, {m['os']}, Python {m['python']}, "
        f"{m['git']}; temp filesystem `{m['tmp_filesystem']}`; load average at start "
        f"{m['load_average_at_start']:.2f}; making a file there cost "
        f"{m.get('file_create_us', float('nan')):.0f} µs"
        + (
            ", each game in a block group of its own (benchmarks/folders.py)."
            if m.get("games_spread")
            else "."
        ),
        "",
        f"Players: every seat is a bot, {r['bot']}. "
        f"Hot-seat: {r['hotseat_4p']['games']} games per player count, every seat a peer of one "
        "repository (after each commit every other local seat fast-forwards to it, without "
        "verifying it again: they share one verifier). "
        "Networked: one clone per seat, driven in one process; before acting a seat makes one "
        "sync round (one fetch of the game's refs, verify, fast-forward, merge, push) and after "
        "acting it pushes.",
        "",
        "References: **paper** = the thesis's own figures (chapter 5, 100 games per player "
        "count); **rerun** = the thesis implementation run on this kind of machine (2 vCPU, "
        "Python 3.11, Linux; 4 players only). Ratio = reference / ours (higher is better for us).",
        "",
        "## Targets (4 players)",
        "",
        "| target | limit | ours | met | paper | rerun |",
        "|---|---|---|---|---|---|",
    ]
    for key, t in check_targets(r).items():
        unit, ours = t["unit"], t["ours"]
        met = "yes" if t["met"] else "**no**"
        out.append(
            f"| `{key}` | ≤ {_fmt(t['limit'], unit)} | {_fmt(ours, unit)} | {met} | "
            f"{_fmt(PAPER.get(key), unit)} | {_fmt(RERUN.get(key), unit)} |"
        )
    for n in sorted(int(k[8:-1]) for k in r if k.startswith("hotseat_")):
        out += [
            "",
            f"## {n} players",
            "",
            "| figure | ours | paper | ratio | rerun | ratio |",
            "|---|---|---|---|---|---|",
        ]
        for label, base, unit in ROWS:
            key = f"{base}_{n}p"
            ours = r.get(key)
            paper, rerun = PAPER.get(key), RERUN.get(key)
            if key == f"sync_ms_per_round_remote_{n}p":
                paper = PAPER["fetch_changed_ms"]  # the thesis's pull from GitHub
                label += " (paper: a pull from GitHub)"
            out.append(
                f"| {label} | {_fmt(ours, unit)} | {_fmt(paper, unit)} | {_ratio(paper, ours)} | "
                f"{_fmt(rerun, unit)} | {_ratio(rerun, ours)} |"
            )
    out += ["", "## Detail", ""]
    for n in sorted(int(k[8:-1]) for k in r if k.startswith("hotseat_")):
        h = r[f"hotseat_{n}p"]
        out += [
            f"**{n} players, hot-seat** ({h['games']} games, {h['unfinished']} cut short): "
            f"commits {h['commits']['mean']:.0f} ± {h['commits']['stdev']:.0f}; "
            f".git as left {h['disk_bytes']['mean'] / KB:.0f} ± {h['disk_bytes']['stdev'] / KB:.0f}"
            f" KB ({h['packs_as_left']['mean']:.1f} packs, {h['loose_objects_as_left']['mean']:.0f}"
            f" loose objects); apparent size of its files {h['apparent_bytes']['mean'] / KB:.0f} KB;"
            f" {h['objects']['mean']:.0f} objects, {h['object_bytes_raw']['mean'] / KB:.0f} KB"
            f" uncompressed, {h['loose_equivalent_bytes']['mean'] / MB:.1f} MB if every object "
            f"were a loose file in a 4 KiB block (the thesis's layout); compute per commit median "
            f"{h['compute_ms']['median']:.2f} ms, mean {h['compute_ms']['mean']:.2f}, p90 "
            f"{h['compute_ms']['p90']:.2f}; hot-seat sync per commit median "
            f"{h['sync_ms_hotseat']['median']:.2f} ms, mean {h['sync_ms_hotseat']['mean']:.2f}, "
            f"p90 {h['sync_ms_hotseat']['p90']:.2f}; packing at the end of a game "
            f"{h['finish_ms']['mean']:.0f} ms (not in the per-commit figures); wall time per commit"
            f" {h['wall_ms_per_commit']['mean']:.2f} ms (bots and session bookkeeping included); "
            f"diff per action median {h['diff_bytes']['median']:.0f} B, p90 "
            f"{h['diff_bytes']['p90']:.0f} B.",
            "",
        ]
        by_file = h.get("diff_bytes_per_action_by_file", {})
        if by_file:
            parts = ", ".join(f"`{name}` {size:.0f} B" for name, size in by_file.items())
            out += [f"Where the mean diff per action goes ({n} players): {parts}.", ""]
        sb = h.get("special_build", {})
        if n >= 5 and sb.get("turns"):
            out += [
                f'**Special building phase** ({n} players, PROTOCOL.md "Five and six '
                f'players"): a seat built or was asked to after '
                f"{100 * sb['turns_with_a_step_share']:.0f} % of {sb['turns']} turns; "
                f"{sb['commits_per_turn']:.2f} commits per turn "
                f"({sb['commits_per_turn_with_a_step']:.2f} in a turn that had a step); "
                "seats that could pay for nothing committed nothing.",
                "",
            ]
        for t in ("bare", "daemon"):
            net = r[f"networked_{t}_{n}p"]
            where = "bare remote on disk" if t == "bare" else "`git daemon` on 127.0.0.1"
            out += [
                f"**{n} players, networked through a {where}** ({net['games']} games, "
                f"{net['actions']} actions, {net['finished']} finished): sync round median "
                f"{net['round_ms']['median']:.1f} ms (mean {net['round_ms']['mean']:.1f}, p90 "
                f"{net['round_ms']['p90']:.1f}); sync per action (the round before it and the "
                f"push after it) median {net['sync_ms_per_action']['median']:.1f} ms; compute "
                f"median {net['compute_ms']['median']:.2f} ms.",
                "",
            ]
    for t in ("bare", "daemon"):
        trip = r[f"round_trip_{t}"]
        out.append(
            f"**Fetch round trip ({t})**, as the thesis timed its pull from GitHub (1 s unchanged,"
            f" 1.06 s changed): nothing new {trip['fetch_unchanged_ms']['median']:.1f} ms, one new "
            f"commit {trip['fetch_changed_ms']['median']:.1f} ms (medians of "
            f"{trip['fetch_changed_ms']['n']})."
        )
        out.append("")
    if "remote_move_visible" in r:
        v = r["remote_move_visible"]
        out += [
            f"**Remote move visible** (`remote_move_visible_ms`, target 250 ms median): from one "
            f"peer's push to the other peer's window session holding the move, through a bare "
            f"remote on local disk, {v['watch']['n']} moves with 0.2-1 s of thought between "
            f"them: {v['watch']['median']:.0f} ms median (p90 {v['watch']['p90']:.0f}, max "
            f"{v['watch']['max']:.0f}) watching the remote's ref files; "
            f"{v['poll']['median']:.0f} ms median (p90 {v['poll']['p90']:.0f}, max "
            f"{v['poll']['max']:.0f}) polling alone, as for a hosted remote.",
            "",
        ]
    e = r["engine"]
    eng = (
        f"**Engine without Git** ({e['games']} games each, {e['bot']}): 2p "
        f"{e['games_per_s_2p']:.1f} games/s ({e['us_per_action_2p']:.0f} µs/action), 4p "
        f"{e['games_per_s_4p']:.1f} games/s ({e['us_per_action_4p']:.0f} µs/action)"
    )
    if "catanatron_version" in e:
        eng += (
            f"; catanatron {e['catanatron_version']} in the same run: 2p "
            f"{e['catanatron_games_per_s_2p']:.1f} games/s ({e['catanatron_us_per_action_2p']:.0f}"
            f" µs/action), 4p {e['catanatron_games_per_s_4p']:.1f} games/s "
            f"({e['catanatron_us_per_action_4p']:.0f} µs/action): ours is "
            f"{e['ratio_per_action_2p']:.1f}× / {e['ratio_per_action_4p']:.1f}× faster per action."
        )
    else:
        eng += "; catanatron is not installed (`pip install -e '.[bench]'`)."
    out += [eng, "", "## Plots", ""]
    out += [f"![{p}]({p})" for p in plots]
    out += [
        "",
        "## How the figures are taken",
        "",
        "- Compute: time inside `Peer.record`, `record_answer` and `record_merge` (the engine "
        "applies the action, the state is serialised, the objects are written as one small pack"
        " into two files a background thread made ahead, the own ref moves). Sync: time inside "
        "`Peer.advance` (verify: apply + serialise + "
        "hash; fast-forward the ref), answer verification, `git fetch` and `git push`; a commit's"
        " sync is the sync time of the submit that made it, divided by the commits it made.",
        "- Storage: `du -sk .git` after the game (the game packs its repository when it ends, "
        "and rolls small packs up in the background while it runs); a copy is then "
        "`git gc --aggressive --prune=now`-ed; packed bytes per commit = that pack's size / "
        "`git rev-list --all --count`.",
        "- Diffs: `git log --all -p --diff-merges=first-parent`, the bytes of each commit's "
        "patch against its first parent, which is what `git diff parent child | wc -c` prints.",
        "",
    ]
    path.write_text("\n".join(out))


# Long on purpose (about 95 lines): one figure after another, each a few lines of
# matplotlib in the order the report shows them.
def write_plots(r: dict, raw: dict, out: Path) -> list[str]:
    """PNG plots in the spirit of the thesis's figures 5.2-5.5; [] without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    names = []

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, n in zip(axes, (2, 4), strict=True):
        games = raw.get(f"games_{n}p", [])
        ax.scatter(
            [g["commits"] for g in games],
            [g["disk_bytes"] / KB for g in games],
            s=10,
            label=".git as left (du)",
        )
        ax.scatter(
            [g["commits"] for g in games],
            [g["gc_pack_bytes"] / KB for g in games],
            s=10,
            label="pack after gc --aggressive",
        )
        ax.set_title(f"{n} players: storage per game")
        ax.set_xlabel("commits")
        ax.set_ylabel("KB")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "storage_vs_commits.png", dpi=100)
    plt.close(fig)
    names.append("storage_vs_commits.png")

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, n in zip(axes, (2, 4), strict=True):
        diffs = raw.get(f"diff_bytes_{n}p", [])
        ax.hist(diffs, bins=40)
        mean = sum(diffs) / max(1, len(diffs))
        ax.axvline(mean, color="red", label=f"mean {mean:.0f} B")
        ax.set_title(f"{n} players: diff per action")
        ax.set_xlabel("bytes of git diff parent child")
        ax.set_ylabel("commits")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "diff_histogram.png", dpi=100)
    plt.close(fig)
    names.append("diff_histogram.png")

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, n in zip(axes, (2, 4), strict=True):
        lat = raw.get(f"latency_game0_{n}p", {"compute_ms": [], "sync_ms": []})
        xs = range(len(lat["compute_ms"]))
        ax.plot(xs, lat["compute_ms"], lw=0.6, label="compute")
        ax.plot(xs, lat["sync_ms"], lw=0.6, label="hot-seat sync")
        ax.set_yscale("log")
        ax.set_title(f"{n} players: latency per commit (one game)")
        ax.set_xlabel("commit")
        ax.set_ylabel("ms")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out / "latency_per_commit.png", dpi=100)
    plt.close(fig)
    names.append("latency_per_commit.png")

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    labels = ["2p", "4p"]
    comp = [r[f"compute_ms_per_commit_{n}p"] for n in (2, 4)]
    sync = [r[f"sync_ms_per_commit_hotseat_{n}p"] for n in (2, 4)]
    axes[0].bar(labels, comp, label="compute")
    axes[0].bar(labels, sync, bottom=comp, label="hot-seat sync")
    axes[0].set_title("median ms per commit (ours)")
    axes[0].legend()
    paper_c = [PAPER[f"compute_ms_per_commit_{n}p"] for n in (2, 4)]
    paper_s = [PAPER[f"sync_ms_per_commit_hotseat_{n}p"] for n in (2, 4)]
    axes[1].bar(labels, paper_c, label="compute")
    axes[1].bar(labels, paper_s, bottom=paper_c, label="sync")
    axes[1].set_title("ms per commit (thesis paper)")
    axes[1].legend()
    axes[2].bar(labels, [r[f"disk_bytes_per_game_{n}p"] / KB for n in (2, 4)], label="ours")
    axes[2].bar(
        labels,
        [PAPER[f"disk_bytes_per_game_{n}p"] / KB for n in (2, 4)],
        alpha=0.4,
        label="thesis paper",
    )
    axes[2].set_yscale("log")
    axes[2].set_title(".git per game (KB)")
    axes[2].legend()
    fig.tight_layout()
    fig.savefig(out / "players_2_vs_4.png", dpi=100)
    plt.close(fig)
    names.append("players_2_vs_4.png")
    return names


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.report DIR``: redraw report.md and the plots from DIR's JSON."""
    import json
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m benchmarks.report DIR (holding results.json and raw.json)")
        return 2
    out = Path(args[0])
    result = json.loads((out / "results.json").read_text())
    raw = json.loads((out / "raw.json").read_text())
    write_report(result, out / "report.md", write_plots(result, raw, out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
