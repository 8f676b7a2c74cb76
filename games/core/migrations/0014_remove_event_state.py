from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0013_events_to_moves'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='event',
            name='state',
        ),
    ]
