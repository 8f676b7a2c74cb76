# Bejeweled 2's high-score tables of today and this week: its finished games by result mode and
# finish time, so a period's table reads only that period's games before ordering them by score.
# The index is on core's Match table; it is made here (by the schema editor, so on PostgreSQL and
# SQLite alike) because Bejeweled 2 alone reads it.

from django.db import migrations, models

INDEX = models.Index(
    models.F("result__mode"),
    models.OrderBy(models.F("finished_at"), descending=True),
    condition=models.Q(("game_key", "bejeweled-2"), ("status", "finished")),
    name="bj2_finished_by_period",
)


def add_index(apps, schema_editor):
    schema_editor.add_index(apps.get_model("core", "Match"), INDEX)


def remove_index(apps, schema_editor):
    schema_editor.remove_index(apps.get_model("core", "Match"), INDEX)


class Migration(migrations.Migration):
    dependencies = [("core", "0010_match_finished_by_result_score")]

    operations = [migrations.RunPython(add_index, remove_index)]
