from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0014_remove_event_state'),
    ]

    operations = [
        migrations.AddField(
            model_name='snapshot',
            name='chain',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='snapshot',
            name='patch',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name='snapshot',
            name='state',
            field=models.JSONField(blank=True, null=True),
        ),
    ]
