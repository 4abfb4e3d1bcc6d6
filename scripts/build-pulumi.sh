#!/usr/bin/env bash
# Builds the pinned Pulumi CLI and its nodejs, python, yaml and go language hosts from the Go module proxy
# into .pulumi-cli/bin (git-ignored). A binary that is already there and reports its pinned version is kept.
# Each one is built inside a throwaway module under .pulumi-cli/build: `go install mod@version` is refused
# because pkg/v3's go.mod has replace directives, and a module of our own pins what version selection picks.
# Prints each binary's module, version and the time it took. Users with an installed `pulumi` need none of it.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.pulumi-cli"
BIN="$OUT/bin"

# The CLI: the newest pkg/v3 that resolves cleanly on Go 1.26.
PULUMI_VERSION=v3.274.1
# The YAML host. v1.25.0 does not compile against pkg/v3 v3.274.1 (plugin.NewContextWithRoot and
# schema.NewPluginLoader changed), so it is built with the pkg/sdk versions its own go.mod selects.
YAML_VERSION=v1.25.0
# The nodejs, python and go hosts are modules of their own with no version tags; only a pseudo-version of
# the v3.274.1 commit would match the CLI, and the proxy here refuses every version of those modules we can
# name (it answers 403 to @v/list, @latest, branch and commit queries). The newest sdk/v3 releases the proxy
# serves that still carry the hosts as packages of sdk/v3 are v3.68.0 (nodejs, python) and v3.62.0 (go).
# Those old hosts lack the code-generation methods of the current CLI, so a wrapper of ours adds pkg/v3
# v3.274.1's code generators to them (build_codegen_host below).
# Set PULUMI_HOSTS_PSEUDO_VERSION=v3.0.0-20261105124506-<12 hex> to build them from their own modules at the
# CLI's commit instead, with pkg/sdk pinned to the CLI's version (they generate code themselves: no wrapper).
HOSTS_SDK_VERSION=v3.68.0
GO_HOST_SDK_VERSION=v3.62.0
HOSTS_PSEUDO_VERSION="${PULUMI_HOSTS_PSEUDO_VERSION:-}"

PKG=github.com/pulumi/pulumi/pkg/v3
SDK=github.com/pulumi/pulumi/sdk/v3
VERSION_VAR="$SDK/go/common/version.Version"

die() {
  echo "build-pulumi: $*" >&2
  exit 1
}

command -v go >/dev/null 2>&1 ||
  die "Go is not installed: install Go 1.26 or newer (https://go.dev/dl/) and run npm run pulumi:build again"
GO_MINOR="$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')"
[[ "$GO_MINOR" =~ ^[0-9]+$ && "$GO_MINOR" -ge 26 ]] ||
  die "$(go env GOVERSION) is too old: install Go 1.26 or newer (https://go.dev/dl/) and run again"

mkdir -p "$BIN"
FAILED=()

# The module and version a Go binary was built from (`mod` line of its build info).
built_from() {
  go version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $2 " " $3; exit }'
}

# The directory of a module version in the Go module cache, downloading it if needed.
module_dir() {
  go mod download -json "$1" | sed -n -E 's/^\s*"Dir": "(.*)",?$/\1/p'
}

# build NAME PACKAGE MODULE VERSION LDFLAGS REQUIREMENT...
# Builds PACKAGE (from MODULE at VERSION) into $BIN/NAME inside a module requiring REQUIREMENT....
build() {
  local name="$1" pkg="$2" mod="$3" version="$4" ldflags="$5"
  shift 5
  local bin="$BIN/$name" dir="$OUT/build/$name" start="$SECONDS"
  if [[ -x "$bin" && "$(built_from "$bin")" == "$mod $version" ]]; then
    echo "$name: $mod $version (already built)"
    return 0
  fi
  echo "$name: building $mod $version ..."
  mkdir -p "$dir"
  {
    printf 'module pulumi-gamehost.local/build/%s\n\ngo 1.26\n\nrequire (\n' "$name"
    printf '\t%s\n' "$@"
    printf ')\n'
  } >"$dir/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" >"$dir/tools.go"
  if ! (cd "$dir" && go mod tidy && go build -buildvcs=false -o "$bin.tmp" -ldflags "$ldflags" "$pkg"); then
    rm -f "$bin.tmp"
    echo "build-pulumi: $name was not built: building $pkg at $version failed (the Go output above says why)" >&2
    FAILED+=("$name")
    return 0
  fi
  mv "$bin.tmp" "$bin"
  echo "$name: $(built_from "$bin") built in $((SECONDS - start)) s"
}

# copy_script NAME MODULE@VERSION PATH: a script from a module's source, beside the binaries; a stamp file
# records which module version it came from, so a change of version replaces it.
copy_script() {
  local dir stamp="$OUT/build/$1.from"
  if [[ -x "$BIN/$1" && "$(cat "$stamp" 2>/dev/null)" == "$2" ]]; then
    return 0
  fi
  dir="$(module_dir "$2")" && [[ -f "$dir/$3" ]] ||
    die "$1 could not be copied: $3 is not in $2 as the Go module proxy serves it"
  install -m 755 "$dir/$3" "$BIN/$1"
  mkdir -p "$OUT/build"
  echo "$2" >"$stamp"
  echo "$1: copied from $2"
}

# keep_old_host NAME VERSION: an old host built before the wrapper existed sits under NAME; it is moved to
# NAME-VERSION instead of being built again.
keep_old_host() {
  if [[ -x "$BIN/$1" && "$(built_from "$BIN/$1")" == "$SDK $2" && ! -e "$BIN/$1-$2" ]]; then
    mv "$BIN/$1" "$BIN/$1-$2"
  fi
}

# The code-generation wrapper (tools/codegen-host, our own Go program). The old hosts run programs but do not
# implement the LanguageRuntime methods the v3.274.1 CLI calls to generate code (`pulumi package gen-sdk` and
# `package add`: GeneratePackage, then Link; `import`: GenerateProgram; `convert`: GenerateProject), and fail
# with "method GeneratePackage not implemented". The wrapper is installed as pulumi-language-nodejs/python/go: it
# starts the old host beside it with the same arguments, serves those methods with pkg/v3 v3.274.1's code
# generators (the ones the CLI's own hosts use), and forwards every other call to the old host unchanged. Go's build cache
# makes a rebuild with unchanged sources a relink only.
build_codegen_host() {
  local start="$SECONDS" src="$ROOT/tools/codegen-host" out="$OUT/build/codegen-host/codegen-host"
  echo "codegen-host: building tools/codegen-host with $PKG $PULUMI_VERSION ..."
  mkdir -p "$(dirname "$out")"
  if ! (cd "$src" && go build -buildvcs=false -o "$out" .); then
    echo "build-pulumi: codegen-host was not built (the Go output above says why); gen-sdk, import and convert will fail" >&2
    FAILED+=(codegen-host)
    return 0
  fi
  local uses
  uses="$(go version -m "$out" | awk '$1 == "dep" && $2 == "'"$PKG"'" { print $2 " " $3 }')"
  for host in nodejs python go; do
    install -m 755 "$out" "$BIN/pulumi-language-$host.tmp"
    mv "$BIN/pulumi-language-$host.tmp" "$BIN/pulumi-language-$host"
  done
  echo "codegen-host: pulumi-language-{nodejs,python,go} wrap the old hosts with the code generators of $uses, built in $((SECONDS - start)) s"
}

TOTAL_START="$SECONDS"

build pulumi "$PKG/cmd/pulumi" "$PKG" "$PULUMI_VERSION" "-X $VERSION_VAR=$PULUMI_VERSION" \
  "$PKG $PULUMI_VERSION" "$SDK $PULUMI_VERSION"
if [[ -x "$BIN/pulumi" ]]; then
  reported="$("$BIN/pulumi" version)"
  [[ "$reported" == "$PULUMI_VERSION" ]] || die "pulumi reports $reported, not $PULUMI_VERSION: delete $BIN/pulumi and run again"
fi

build pulumi-language-yaml github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml github.com/pulumi/pulumi-yaml \
  "$YAML_VERSION" "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION" \
  "github.com/pulumi/pulumi-yaml $YAML_VERSION"

if [[ -n "$HOSTS_PSEUDO_VERSION" ]]; then
  for host in nodejs/cmd/pulumi-language-nodejs python/cmd/pulumi-language-python go/pulumi-language-go; do
    mod="github.com/pulumi/pulumi/sdk/$host/v3"
    build "$(basename "$host")" "$mod" "$mod" "$HOSTS_PSEUDO_VERSION" "-X $VERSION_VAR=$PULUMI_VERSION" \
      "$mod $HOSTS_PSEUDO_VERSION" "$PKG $PULUMI_VERSION" "$SDK $PULUMI_VERSION"
  done
  EXEC_SDK_VERSION="$PULUMI_VERSION"
else
  # The old hosts are built as pulumi-language-<lang>-<version>; the wrapper below takes their names.
  for host in nodejs python; do
    keep_old_host "pulumi-language-$host" "$HOSTS_SDK_VERSION"
    build "pulumi-language-$host-$HOSTS_SDK_VERSION" "$SDK/$host/cmd/pulumi-language-$host" "$SDK" \
      "$HOSTS_SDK_VERSION" "-X $VERSION_VAR=$HOSTS_SDK_VERSION" "$SDK $HOSTS_SDK_VERSION"
  done
  keep_old_host pulumi-language-go "$GO_HOST_SDK_VERSION"
  build "pulumi-language-go-$GO_HOST_SDK_VERSION" "$SDK/go/pulumi-language-go" "$SDK" "$GO_HOST_SDK_VERSION" \
    "-X $VERSION_VAR=$GO_HOST_SDK_VERSION" "$SDK $GO_HOST_SDK_VERSION"
  EXEC_SDK_VERSION="$HOSTS_SDK_VERSION"
  build_codegen_host
fi

# The python host exits unless the exec script of its own release sits beside it; dynamic providers run
# through the SDKs' pulumi-resource-pulumi-{nodejs,python} scripts, which the CLI looks for beside itself.
if [[ " ${FAILED[*]} " != *" pulumi-language-python "* ]]; then
  copy_script pulumi-language-python-exec "$SDK@$EXEC_SDK_VERSION" python/cmd/pulumi-language-python-exec
fi
copy_script pulumi-resource-pulumi-nodejs "$SDK@$PULUMI_VERSION" nodejs/dist/pulumi-resource-pulumi-nodejs
copy_script pulumi-resource-pulumi-python "$SDK@$PULUMI_VERSION" python/dist/pulumi-resource-pulumi-python

echo "build-pulumi: $BIN ready in $((SECONDS - TOTAL_START)) s; put it first on PATH"
if ((${#FAILED[@]} > 0)); then
  die "not built: ${FAILED[*]}"
fi
