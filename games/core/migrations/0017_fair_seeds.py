"""Provably fair matches (issue 38): a server seed, committed before anyone joins and revealed
at the end, and the fairness record (players' seeds, sealed moves' receipts). Matches made before
keep an empty server seed: their draws come from their numeric seed as before, and their pages
say they were made before seeds were committed."""

import games.core.models
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0016_snapshots_to_patches"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="fairness",
            field=models.JSONField(blank=True, default=dict),
        ),
        # Existing rows get "" (an older match), new ones a seed of their own.
        migrations.AddField(
            model_name="match",
            name="server_seed",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AlterField(
            model_name="match",
            name="server_seed",
            field=models.CharField(
                blank=True, default=games.core.models.new_server_seed, max_length=64
            ),
        ),
    ]
