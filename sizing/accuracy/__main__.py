"""python -m sizing.accuracy [--choose]"""

import argparse
import re
from pathlib import Path

from . import __doc__ as DOC
from ..catalog import HERE, independent
from .table import RECORDS_NOTE, markdown, rows, speeds


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m sizing.accuracy", description=DOC.split("\n\n")[0])
    ap.add_argument("--choose", action="store_true", help="choose the family defaults and write defaults.yaml")
    ap.add_argument("--readme", metavar="FILE", help="rewrite the accuracy tables between their markers in FILE, and the catalog's "
                    "accuracy.yaml (each record's measured / predicted speed)")
    args = ap.parse_args(argv)
    if args.readme:
        path, table = Path(args.readme), rows()
        path.write_text(with_tables(path.read_text(), markdown(table, rows(records=independent()))))
        (HERE / "accuracy.yaml").write_text(speeds(table))
        print(f"wrote {path} and {HERE / 'accuracy.yaml'}")
        return
    if args.choose:
        from .choose import choose, write
        figs, evidence = choose()
        write(figs, evidence)
        for fam, f in figs.items():
            print(fam, {n: round(v, 6) for n, v in f.items()})
        return
    print(markdown(rows(), rows(records=independent())))


def with_tables(text: str, table: str) -> str:
    """`text` with the summary and the per-record tables replaced between their HTML-comment markers."""
    summary, _, records = table.partition(f"\n\n{RECORDS_NOTE}")
    for tag, body in (("accuracy-summary", summary), ("accuracy-records", RECORDS_NOTE + records)):
        pattern = re.compile(rf"(<!-- {tag}[^>]*-->\n).*?(\n<!-- /{tag} -->)", re.S)
        if not pattern.search(text):
            raise SystemExit(f"no <!-- {tag} --> markers in the file")
        text = pattern.sub(lambda m: m.group(1) + body + m.group(2), text)
    return text


if __name__ == "__main__":
    main()
