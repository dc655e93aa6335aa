#!/usr/bin/env python3
"""Validates a JSON document against a JSON Schema (draft 2020-12).

    validate_json.py SCHEMA DOCUMENT

Prints one line per error (the path in the document, then the message) and
exits 1 when there is any, 0 when the document is valid.
"""
import json
import sys

import jsonschema


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[2], encoding="utf-8") as f:
        document = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=str)
    for error in errors:
        print(f"{'/'.join(str(p) for p in error.absolute_path)}: {error.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
