"""``irgauge pool RUN... --strategy S [--depth K | --budget N] [--qrels QRELS] [--seed SEED]
[--format tsv|qrels] -o FILE``: which documents to judge, in what order, and with what
inclusion probability."""

from __future__ import annotations

import sys

from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import output_options

STRATEGIES = ("depth", "fusion", "mtf", "bandit", "sample")  # collection.pooling's


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "pool",
        help="choose the documents to judge (depth, fusion, mtf, bandit or sampled pools)",
        formatter_class=HelpFormatter,
        description="Pool the runs: depth (TREC's depth-K pool, judged by best rank then "
        "docno), fusion (the top N of reciprocal rank fusion, k = 60), mtf (Move-to-Front, "
        "Cormack, Palmer and Clarke 1998), bandit (MM-NS, Losada, Parapar and Barreiro "
        "2016/2017) or sample (statAP's AP-prior sample, or infAP's uniform sample within "
        "depth strata, with known inclusion probabilities). mtf and bandit choose each "
        "document from the judgments made so far: --qrels simulates judging. Writes "
        "'topic, docno, order, inclusion' (order: the judging order within the topic, 1 "
        "first; inclusion: the probability of being in the pool, 1 unless sampled), or "
        "trec_eval qrels 'TOPIC 0 DOCNO -1' (pooled, not judged), or, once a sample is "
        "judged (--qrels), prels 'TOPIC DOCNO LEVEL INCLUSION' for eval --prels --negative "
        "unjudged: the sampled documents at their level, the rest of the pool at -1; with "
        "-o FILE, the strategy and every parameter (the seed too) go to FILE.json beside it.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files")
    parser.add_argument("--strategy", choices=STRATEGIES, default="depth", help="how to pool")
    opt.add_pool_depth(parser, role="each run read to its top K (depth needs K or --budget)")
    parser.add_argument(
        "--budget",
        type=opt.count,
        default=None,
        metavar="N",
        help="documents to judge per topic (sample needs it; default: the whole pool); "
        "more than a topic's pool holds is refused",
    )
    opt.add_qrels_file(
        parser,
        "the judgments of the pool: mtf and bandit simulate judging with them (relevant: "
        "level >= 1), --format prels writes the sample judged by them; their topics are "
        "pooled, and a run missing one is refused",
    )
    opt.add_seed(parser, of=" of the sample")
    sampling = parser.add_argument_group("sample")
    sampling.add_argument(
        "--design",
        choices=("statap", "infap"),
        default="statap",
        help="statap: AP-prior inclusion probabilities (Aslam, Pavlu and Yilmaz 2006); "
        "infap: uniform within depth strata (Yilmaz and Aslam 2006)",
    )
    sampling.add_argument(
        "--strata",
        type=opt.depths,
        default=None,
        metavar="D1,D2,...",
        help="infap's strata: documents whose best rank is <= D1, in (D1, D2], ..., deeper",
    )
    output_options.add_format(
        parser,
        ("tsv", "qrels", "prels"),
        ": tsv (topic, docno, order, inclusion), qrels (TOPIC 0 DOCNO -1) or prels (a "
        "sample judged by --qrels: TOPIC DOCNO LEVEL INCLUSION, every pooled document, the "
        "unsampled at -1)",
    )
    output_options.add_output(parser, "the pool")
    output_options.add_no_header(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    import json

    from irgauge.collection.pooling import pool
    from irgauge.io.atomic import write_bytes, write_text

    parameters = _checked(args)
    # prels: the sample drawn as the TSV to judge was (its topics the runs', not the
    # judgments'), then judged by --qrels
    drawn_with = None if args.format == "prels" else args.qrels
    chosen = pool(
        args.runs, args.strategy, args.depth, args.budget, drawn_with, args.seed, **parameters
    )
    if args.format == "prels":
        body = _prels(chosen, args.qrels)
    else:
        body = chosen.tsv(not args.no_header) if args.format == "tsv" else chosen.qrels()
    if args.format == "qrels" and args.strategy == "sample":
        # said, not silently dropped: judged, the sample is scored from these probabilities
        print(
            "irgauge: note: --format qrels leaves out the sample's inclusion probabilities, "
            "which statAP, statP, statR and infAP weigh the judgments by (--prels); the TSV "
            "or --format prels holds them (the same --seed draws the same sample)",
            file=sys.stderr,
        )
    if args.output is None:
        # the bytes -o writes: a pool is data to read back, and a docno that is not UTF-8
        # printed as a \xNN escape would be another document to the readers
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:  # a text stream of a program calling main: no bytes to carry
            sys.stdout.write(body.decode(errors="backslashreplace"))
        else:
            sys.stdout.flush()
            binary.write(body)
            binary.flush()
        _note_seed(chosen, args)
        return 0
    from irgauge.io.staging import output_file, side_file

    # staged: the pool and its manifest replace what was there together
    write_bytes(output_file(args.output), body)
    manifest = side_file(args.output, ".json")
    if manifest is None:
        _note_seed(chosen, args)
    else:
        write_text(manifest, json.dumps(chosen.manifest(), indent=2) + "\n")
    return 0


def _checked(args) -> dict:
    """The options checked against each other; the strategy's parameters given."""
    from irgauge.errors import InputError

    if args.no_header and args.format != "tsv":
        raise InputError(f"--no-header: --format {args.format} has no header lines to leave out")
    if args.format == "prels" and args.strategy != "sample":
        raise InputError(
            "--format prels: only --strategy sample has inclusion probabilities to estimate from"
        )
    if args.format == "prels" and args.qrels is None:
        raise InputError("--format prels: give the sample's judgments (--qrels QRELS)")
    if args.strategy == "depth" and args.depth is None and args.budget is None:
        raise InputError("--strategy depth needs the pool's depth (--depth K) or a --budget N")
    parameters: dict = {}
    for name in ("design", "strata"):
        if name in args.given_options:
            if args.strategy != "sample":
                raise InputError(f"--{name}: only --strategy sample draws a sample")
            parameters[name] = getattr(args, name)
    if args.strata and parameters.get("design") != "infap":
        raise InputError("--strata: only --design infap samples within strata")
    return parameters


def _prels(chosen, qrels) -> bytes:
    """The sample judged by ``qrels``, as prels; a sampled document they do not hold is
    written judged nonrelevant, as the simulations read it, and a judge who skipped it
    is told so."""
    from irgauge.collection.pooling.pooled import prels_bytes
    from irgauge.io.words import counted

    judged, missing = chosen.judged_by(qrels)
    chosen.parameters["judgments"] = str(qrels)
    if missing:
        print(
            f"irgauge: note: {qrels} holds no judgment of "
            f"{counted(missing, 'sampled document')}: written at level 0, judged nonrelevant",
            file=sys.stderr,
        )
    return prels_bytes(judged)


def _note_seed(chosen, args) -> None:
    """A sample's seed on stderr where the output printed does not hold it (no header)."""
    if "seed" in chosen.parameters and (args.format != "tsv" or args.no_header):
        print(f"irgauge: note: seed {chosen.parameters['seed']}", file=sys.stderr)
