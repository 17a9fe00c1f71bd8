"""A tiny command-line todo list, stored as JSON."""
import argparse
import json
import sys
from datetime import date
from pathlib import Path

DEFAULT_PATH = Path("todos.json")


def load(path):
    path = Path(path)
    if not path.exists():
        return []
    return json.loads(path.read_text())


def save(items, path):
    Path(path).write_text(json.dumps(items, indent=2))


def iso_date(text):
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text}") from None


def build_parser():
    parser = argparse.ArgumentParser(prog="todo")
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add an item")
    add.add_argument("title")
    add.add_argument("--due", type=iso_date)
    listing = sub.add_parser("list", help="list the items")
    listing.add_argument("--overdue", action="store_true")
    done = sub.add_parser("done", help="mark an item done")
    done.add_argument("number", type=int)
    return parser


def main(argv=None, path=DEFAULT_PATH, out=None, today=None):
    out = out or sys.stdout
    today = today or date.today()
    args = build_parser().parse_args(argv)
    items = load(path)
    if args.command == "add":
        item = {"title": args.title, "done": False}
        if args.due:
            item["due"] = args.due.isoformat()
        items.append(item)
        save(items, path)
        print(f"added {len(items)}: {args.title}", file=out)
    elif args.command == "list":
        for number, item in enumerate(items, 1):
            due = item.get("due")
            if args.overdue and (item["done"] or not due or date.fromisoformat(due) >= today):
                continue
            mark = "x" if item["done"] else " "
            suffix = f" (due {due})" if due else ""
            print(f"{number}. [{mark}] {item['title']}{suffix}", file=out)
    elif args.command == "done":
        if not 1 <= args.number <= len(items):
            print(f"no item {args.number}", file=sys.stderr)
            return 1
        items[args.number - 1]["done"] = True
        save(items, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
