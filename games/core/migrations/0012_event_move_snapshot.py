import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0011_event_sent_at'),
    ]

    operations = [
        migrations.AddField(
            model_name='event',
            name='move',
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.CreateModel(
            name='Snapshot',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('version', models.PositiveIntegerField()),
                ('state', models.JSONField()),
                ('match', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='snapshots', to='core.match')),
            ],
            options={
                'ordering': ['match', 'version'],
                'constraints': [models.UniqueConstraint(fields=('match', 'version'), name='one_snapshot_per_version')],
            },
        ),
    ]
