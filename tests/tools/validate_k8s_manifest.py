#!/usr/bin/env python3
"""Validates Kubernetes manifests against the definitions of Kubernetes'
OpenAPI (Swagger 2.0) document, as kubectl's validation does: the object's
apiVersion and kind pick its definition (x-kubernetes-group-version-kind),
and a field the definition does not name is an error.

    validate_k8s_manifest.py SWAGGER DOCUMENT...

Prints one line per error (the file, the path in the document, the message)
and exits 1 when there is any, 0 when every document is valid.

Swagger 2.0's schema objects are a subset of JSON Schema draft 4, so a draft
4 validator reads the definitions as they are. What they leave open is made
strict here, not in the vendored file (which stays the package's bytes): an
object with named properties gets additionalProperties false, as kubectl and
the API server refuse unknown fields; apiVersion and kind must be the pair
the definition is for.
"""
import copy
import json
import sys

import jsonschema


def strict(node):
    if isinstance(node, dict):
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            strict(value)
    elif isinstance(node, list):
        for value in node:
            strict(value)


def schema_for(definitions, document):
    api_version = document.get("apiVersion", "") if isinstance(document, dict) else ""
    kind = document.get("kind", "") if isinstance(document, dict) else ""
    for name, definition in definitions.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            group_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            if (group_version, gvk["kind"]) == (api_version, kind):
                root = copy.deepcopy(definition)
                root["properties"]["apiVersion"] = {"type": "string", "enum": [group_version]}
                root["properties"]["kind"] = {"type": "string", "enum": [gvk["kind"]]}
                root["required"] = sorted(set(root.get("required", [])) | {"apiVersion", "kind"})
                root["definitions"] = definitions
                return root
    return None


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        definitions = json.load(f)["definitions"]
    strict(definitions)
    failed = False
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        schema = schema_for(definitions, document)
        if schema is None:
            print(f"{path}: apiVersion {document.get('apiVersion')!r} kind {document.get('kind')!r}: "
                  f"no definition in {sys.argv[1]}")
            failed = True
            continue
        jsonschema.Draft4Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(document), key=str)
        for error in errors:
            print(f"{path}: {'/'.join(str(p) for p in error.absolute_path)}: {error.message}")
        failed = failed or bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
