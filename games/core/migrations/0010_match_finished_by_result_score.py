# Bejeweled 2's high-score tables: its finished games by result mode and score (issue 19).

import django.db.models.fields.json
import django.db.models.functions.comparison
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0009_ledger_entry_version_and_finished_version"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="match",
            index=models.Index(
                models.F("result__mode"),
                models.OrderBy(
                    django.db.models.functions.comparison.Cast(
                        django.db.models.fields.json.KeyTextTransform("score", "result"),
                        models.BigIntegerField(),
                    ),
                    descending=True,
                ),
                models.OrderBy(models.F("finished_at"), descending=True),
                condition=models.Q(("game_key", "bejeweled-2"), ("status", "finished")),
                name="finished_by_result_score",
            ),
        ),
    ]
