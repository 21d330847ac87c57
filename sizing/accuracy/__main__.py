"""python -m sizing.accuracy [--choose]"""

import argparse

from . import __doc__ as DOC
from .table import markdown, rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m sizing.accuracy", description=DOC.split("\n\n")[0])
    ap.add_argument("--choose", action="store_true", help="choose the family defaults and write defaults.yaml")
    args = ap.parse_args(argv)
    if args.choose:
        from .choose import choose, write
        figs, evidence, floor = choose()
        write(figs, evidence, floor)
        print(f"layer_overhead {floor:g} us")
        for fam, f in figs.items():
            print(fam, {n: round(v, 6) for n, v in f.items()})
        return
    print(markdown(rows()))


if __name__ == "__main__":
    main()
