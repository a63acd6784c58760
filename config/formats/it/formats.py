"""Italian date formats as Italian is written: "1 dicembre 2026", not Django's
zero-padded "01 Dicembre 2026" (the lowercase month and weekday names are in
locale/it/LC_MESSAGES/django.po). Whatever is not set here comes from Django's Italian formats."""

DATE_FORMAT = "j F Y"  # 1 dicembre 2026
DATETIME_FORMAT = "l j F Y, H:i"  # martedì 1 dicembre 2026, 18:30
MONTH_DAY_FORMAT = "j F"  # 1 dicembre
