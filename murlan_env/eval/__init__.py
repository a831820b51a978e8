"""Evaluation: the duplicate-deal runner (``duplicate``) and tournaments with ratings
(``arena``)."""
