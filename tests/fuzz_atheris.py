"""Coverage-guided fuzzing of one parser with atheris (libFuzzer for Python).

    python tests/fuzz_atheris.py TARGET [libFuzzer options] CORPUS_DIR

TARGET is one of fuzz_targets.TARGETS. The seeds (the project's own files) are written
into CORPUS_DIR first; libFuzzer mutates them guided by the coverage of panel/ and
firmware/, and an input that crashes the target is written where -artifact_prefix says
(tests/test_fuzz.py points it at tests/data/fuzz/TARGET/, which the tests replay).
Example, ten minutes on the serial frames:

    .venv/bin/python tests/fuzz_atheris.py serial_frames -max_total_time=600 /tmp/frames
"""

import hashlib
import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

with atheris.instrument_imports(include=["panel", "firmware"]):
    import fuzz_targets


def main() -> None:
    target = sys.argv.pop(1)
    check = fuzz_targets.TARGETS[target]
    corpus = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    if corpus:
        os.makedirs(corpus, exist_ok=True)
        for data in fuzz_targets.seeds(target):
            with open(os.path.join(corpus, "seed-" + hashlib.sha1(data).hexdigest()[:12]), "wb") as f:
                f.write(data)
    def one(data: bytes) -> None:
        try:
            check(data)
        except Exception as e:
            if not fuzz_targets.owned_by_issue_10(e):  # see there: reported by the Hypothesis layer
                raise

    atheris.Setup(sys.argv, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
