"""Write ``whisper_normalizer_golden.json``: tricky inputs with OpenAI Whisper's own normalized outputs.

The golden answers come from the real openai-whisper source, not from the package lightscore uses:

    python tests/data/make_whisper_golden.py            # downloads openai-whisper==20250625 from PyPI
    python tests/data/make_whisper_golden.py SRC_DIR    # an unpacked openai-whisper source tree

It runs ``pip download openai-whisper==20250625 --no-deps --no-binary :all:`` into a temporary
folder, unpacks the sdist and imports ``whisper/normalizers/`` by file path as a package of its own,
so ``whisper/__init__.py`` (which needs torch, numba and tiktoken) never runs. The normalizers
themselves need only ``regex`` and ``more_itertools``.

Besides the cases, the file records the openai-whisper version and ``english_rules_sha1``, the
fingerprint of the English rule tables (see ``lightscore.normalize.english_rules_sha1``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

__all__ = ["CASES", "OPENAI_WHISPER_VERSION", "load_openai_normalizers", "main"]

OPENAI_WHISPER_VERSION = "20250625"
GOLDEN = Path(__file__).with_name("whisper_normalizer_golden.json")

CASES = [
    # numbers in words and digits
    "twenty five",
    "twenty-five",
    "one hundred and twenty three",
    "two thousand and nine",
    "nineteen ninety nine",
    "three point one four",
    "zero point five",
    "one million two hundred thousand",
    "a hundred",
    "one oh one",
    "double o seven",
    "minus five degrees",
    "-5 and +5",
    "1,000,000 people",
    "1,2,3",
    "3.14 and 0.5",
    "the 1990s and the 90s",
    "in 2019 and two thousand nineteen",
    "10:30 on 12/25/2020",
    "one two three four",
    "the first second and third",
    "1st 2nd 3rd 4th 21st",
    "twenty first century",
    "a couple of hundreds",
    # currencies and percents
    "$20.50",
    "twenty dollars and fifty cents",
    "£1m",
    "€5 million",
    "¢50",
    "1.5 billion dollars",
    "five pounds",
    "a dollar and one cent",
    "50%",
    "fifty percent",
    "12.5 per cent",
    "100 percent sure",
    # fractions
    "1/2",
    "½ and ¾",
    "one half",
    "three quarters",
    "two and a half",
    # British spellings
    "colour",
    "The organisation travelled to the theatre in grey colours.",
    "analyse the programme",
    # contractions and titles
    "won't",
    "y'all",
    "I can't, you won't, we'd been there",
    "she's gone, he's got it, it's done",
    "let's go, ma'am",
    "gonna wanna gotta",
    "I'ma do it, imma",
    "it 's fine",
    "it’s a curly apostrophe",
    "Mr. Smith and Mrs. Jones met Dr. Who",
    "St. Louis",
    "Prof Capt Gen Sen Rep Jr Sr Esq",
    "kinda sorta dunno 'cause",
    "I dunno, it's sorta late cause of traffic",
    # punctuation, hyphens, quotes
    "Hello, world! How's it going?",
    "Wait... what?!",
    "“Smart quotes” and ‘single’ ones",
    "em—dash and en–dash",
    "state-of-the-art e-mail",
    "well-known twenty-one-year-old",
    "a.b.c. U.S.A.",
    "end of sentence.",
    "The end. 5.",
    # brackets
    "[laughter] hello (inaudible) <unk> world",
    "[a (b] c)",
    "{curly} braces",
    "<b>bold</b>",
    "(a) (b)",
    # fillers and the non-idempotent cases
    "um uh hmm mm mhm mmm",
    "uh-huh",
    "20mm",
    "5km and 3kg",
    # symbols
    "@#&*",
    "C++ and C#",
    "100°C",
    "© 2020 ®",
    "👍 ok 🎉",
    "5 + 3 = 8",
    "a&b",
    "x^2",
    "tab\tand\nnewline",
    "  multiple   spaces  ",
    "",
    "?!",
    "HELLO WORLD",
    # accents and non-Latin scripts
    "Café naïve résumé",
    "Straße Œuvre smørrebrød Łódź þorn",
    "Tiếng Việt",
    "你好，世界！",
    "我有3个苹果。",
    "مرحبا بالعالم، كيف حالك؟",
    "مَرْحَبًا",
    "नमस्ते दुनिया",
    "हिन्दी में परीक्षण।",
    "こんにちは、世界。",
    "안녕하세요 세계",
    "Привет, мир!",
    "Γειά σου Κόσμε",
    "ﬁ ligature and ｆｕｌｌｗｉｄｔｈ",
    "İstanbul",
]


def download_source(dest: Path) -> Path:
    """Download and unpack the openai-whisper sdist into ``dest``; return the unpacked tree."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"openai-whisper=={OPENAI_WHISPER_VERSION}",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--quiet",
            "-d",
            str(dest),
        ],
        check=True,
    )
    (sdist,) = dest.glob("openai_whisper-*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(dest, filter="data")
    return dest / f"openai_whisper-{OPENAI_WHISPER_VERSION}"


def load_openai_normalizers(source: Path):
    """Import ``whisper/normalizers`` from an openai-whisper tree without running ``whisper/__init__.py``."""
    folder = source / "whisper" / "normalizers"
    spec = importlib.util.spec_from_file_location(
        "openai_whisper_normalizers", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> None:
    """Write the golden file from the source tree in ``argv[0]``, or from a fresh download."""
    # Imported here so the script runs from anywhere in the checkout.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from lightscore.normalize import english_rules_sha1

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(argv[0]) if argv else download_source(Path(tmp))
        version = (source / "whisper" / "version.py").read_text().split('"')[1]
        if version != OPENAI_WHISPER_VERSION:
            raise SystemExit(f"{source}: openai-whisper {version}, expected {OPENAI_WHISPER_VERSION}")
        openai = load_openai_normalizers(source)
        english, basic = openai.EnglishTextNormalizer(), openai.BasicTextNormalizer()
        golden = {
            "openai_whisper": OPENAI_WHISPER_VERSION,
            "made_by": "tests/data/make_whisper_golden.py",
            "english_rules_sha1": english_rules_sha1(english),
            "cases": [{"text": t, "whisper_english": english(t), "whisper_basic": basic(t)} for t in CASES],
        }
    GOLDEN.write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(CASES)} cases to {GOLDEN}")


if __name__ == "__main__":
    main(sys.argv[1:])
