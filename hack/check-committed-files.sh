#!/usr/bin/env bash
# Fails when the repository carries a compiled binary, or a file over 1 MB that is not a
# reviewed fixture listed in hack/large-files.txt: every clone downloads what is committed, and a
# harness binary once slipped in with an unrelated change (issue 22). `make vet` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1024 * 1024))
allowed=hack/large-files.txt
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue # deleted in the work tree, not yet committed
  # Executables and objects by their magic: ELF, Mach-O (both byte orders, fat), PE, ar archives.
  case "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" in
    7f454c46* | cffaedfe* | cefaedfe* | feedfacf* | feedface* | cafebabe* | 4d5a* | 213c617263683e0a*)
      echo "compiled binary committed: $f"; bad=1; continue ;;
  esac
  size=$(stat -c %s "$f")
  if [ "$size" -gt "$limit" ] && ! grep -qxF -- "$f" "$allowed" 2>/dev/null; then
    echo "file over 1 MB committed: $f ($size bytes); list it in $allowed if it is a reviewed fixture"
    bad=1
  fi
done < <(git ls-files -z)
exit $bad
