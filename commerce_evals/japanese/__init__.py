"""Reading Japanese: the script, numerals in kanji, sentences and clauses, negation, typed facts.

The bottom of the package's Japanese readers (the typed facts here, the statuses, claims and
asking of grading/ja/ and cases/asking_ja.py, the shop's search): it imports nothing of the
package outside it, so every layer may use it. A text is read as Japanese when it holds kana, kanji or a yen sign
(`is_japanese`); the readers above choose their Japanese reader by that.
"""
