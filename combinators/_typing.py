"""The one ``TYPE_CHECKING`` flag of :mod:`combinators`.

``import combinators`` loads of the standard library only ``__future__``,
``itertools`` and ``reprlib`` (``tests/test_startup.py`` holds it to that);
``typing`` alone costs more than the whole package. So each module imports the
names its annotations use under this flag: ``False`` at run time, taken as true
by type checkers (mypy and pyright read any constant of this name so).

>>> TYPE_CHECKING
False
"""

TYPE_CHECKING = False

__all__ = ("TYPE_CHECKING",)
