"""The lightscore example recipe: a small CTC speech recognizer scored with WER, CER and TER.

Run it with ``python examples/lightning_recipe/run.py`` (see ``docs/recipe.md``).
"""
