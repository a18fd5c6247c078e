"""A small multi-role TorchX component: a trainer with replicas and a parameter server.

Run it through TorchX's dry run with podfold's scheduler (see the README)::

    torchx run --scheduler kubernetes_overlay --dryrun --workspace "" \\
        -cfg "queue=default,overlays=examples/a100.yaml" examples/trainer.py:trainer
"""

import torchx.specs as specs

from combinators import merge_by
from transforms.torchx.roles import with_overlays


def trainer(
    image: str = "ghcr.io/example/trainer:1.4.2",
    replicas: int = 2,
    epochs: int = 10,
    ps_image: str = "ghcr.io/example/param-server:1.4.2",
) -> specs.AppDef:
    """A trainer with ``replicas`` replicas and one parameter server.

    The trainer's own overlay names each replica's rank in an env var, with
    TorchX's macros, on its main container (``spec.containers[0]``).

    :param image: the trainer's image
    :param replicas: how many trainer replicas
    :param epochs: epochs to train
    :param ps_image: the parameter server's image
    """
    trainer_role = specs.Role(
        name="trainer",
        image=image,
        entrypoint="python",
        args=["-m", "train", "--epochs", str(epochs), "--ps", "ps-0"],
        env={"LOGLEVEL": "INFO"},
        num_replicas=replicas,
        resource=specs.Resource(cpu=8, gpu=1, memMB=32_000),
        port_map={"c10d": 29500},
    )
    trainer_role = with_overlays(
        trainer_role,
        merge_by(
            "spec.containers[0].env",
            [
                {"name": "TRAINER_RANK", "value": "${replica_id}"},
                {"name": "JOB_ID", "value": "${app_id}"},
            ],
        ),
    )
    ps_role = specs.Role(
        name="ps",
        image=ps_image,
        entrypoint="python",
        args=["-m", "param_server", "--port", "9000"],
        num_replicas=1,
        resource=specs.Resource(cpu=4, gpu=0, memMB=8_000),
        port_map={"ps": 9000},
    )
    return specs.AppDef(name="trainer", roles=[trainer_role, ps_role])
