"""deploy/k8s (issue 30): the production overlay renders with `kubectl kustomize`, every document
validates offline against the Kubernetes schemas (kubernetes-validate), the two custom resources
(KEDA's ScaledObject, the Prometheus operator's ServiceMonitor) carry their required fields, and
the manifests say what the deployment promises: probes, budgets, autoscalers, the migration Job,
no secret inline, a read-only root filesystem with the writable paths mounted."""

import re
import shutil
import subprocess
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent.parent
K8S = ROOT / "deploy" / "k8s"
OVERLAY = K8S / "overlays" / "production"
KUBECTL = shutil.which("kubectl") or "/usr/bin/kubectl"
# The oldest schema set kubernetes-validate ships that every API used here is in
# (autoscaling/v2 and policy/v1 went GA in 1.23 and 1.21); clusters this old are still run.
KUBERNETES_VERSION = "1.30.0"
CUSTOM = {
    ("keda.sh/v1alpha1", "ScaledObject"),
    ("keda.sh/v1alpha1", "TriggerAuthentication"),
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("monitoring.coreos.com/v1", "PodMonitor"),
}
# The kinds of queue docker-compose runs a worker for (config.settings.base.TASK_QUEUE_KINDS,
# plus `default` for everything not routed).
WORKER_KINDS = sorted({*settings.TASK_QUEUE_KINDS.values(), "default"})
AUTOSCALED_WORKERS = [kind for kind in WORKER_KINDS if kind != "sweeps"]


def render(path: Path) -> list[dict]:
    if not Path(KUBECTL).exists():
        pytest.fail(f"kubectl is not installed at {KUBECTL}", pytrace=False)
    out = subprocess.run(
        [KUBECTL, "kustomize", str(path)], capture_output=True, text=True, check=True, timeout=60
    )
    return [doc for doc in yaml.safe_load_all(out.stdout) if doc]


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    return render(OVERLAY)


def one(docs: list[dict], kind: str, name: str) -> dict:
    [found] = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return found


def deployments(docs: list[dict]) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}


def pod_specs(docs: list[dict]) -> list[tuple[str, dict]]:
    specs = [
        (d["metadata"]["name"], d["spec"]["template"]["spec"])
        for d in docs
        if d["kind"] in ("Deployment", "Job")
    ]
    specs += [
        (d["metadata"]["name"], d["spec"]["jobTemplate"]["spec"]["template"]["spec"])
        for d in docs
        if d["kind"] == "CronJob"
    ]
    return specs


@pytest.mark.parametrize("path", [K8S / "base", OVERLAY], ids=["base", "production"])
def test_every_rendered_document_validates_against_the_kubernetes_schemas(path):
    docs = render(path)
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "Ingress", "Job", "PodDisruptionBudget"} <= kinds
    assert {"HorizontalPodAutoscaler", "ScaledObject", "ConfigMap", "CronJob"} <= kinds
    assert "TriggerAuthentication" in kinds
    for doc in docs:
        if (doc["apiVersion"], doc["kind"]) in CUSTOM:
            continue  # no schema shipped: checked field by field below
        # strict: an unknown field (a typo) fails too.
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)


def test_kubernetes_validate_refuses_a_broken_manifest(docs):
    """The validation above can fail: a probe with a port of the wrong type is refused."""
    web = yaml.safe_load(yaml.safe_dump(one(docs, "Deployment", "ezmax-web")))
    web["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["periodSeconds"] = "often"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(web, KUBERNETES_VERSION, strict=True)


def test_custom_resources_carry_their_required_fields(docs):
    scaled = [d for d in docs if d["kind"] == "ScaledObject"]
    assert sorted(d["spec"]["scaleTargetRef"]["name"] for d in scaled) == [
        f"ezmax-worker-{kind}" for kind in AUTOSCALED_WORKERS
    ]
    names = deployments(docs)
    for doc in scaled:
        spec = doc["spec"]
        assert spec["scaleTargetRef"]["name"] in names
        assert 1 <= spec["minReplicaCount"] < spec["maxReplicaCount"]
        types = {trigger["type"] for trigger in spec["triggers"]}
        assert types == {"postgresql", "redis"}, doc["metadata"]["name"]
        for trigger in spec["triggers"]:
            assert isinstance(trigger["metadata"], dict)
            assert trigger["metadata"]
    [monitor] = [d for d in docs if d["kind"] == "ServiceMonitor"]
    endpoint = monitor["spec"]["endpoints"][0]
    assert endpoint["path"] == "/metrics"
    web_service = one(docs, "Service", "ezmax-web")
    assert endpoint["port"] in {port["name"] for port in web_service["spec"]["ports"]}
    selector = monitor["spec"]["selector"]["matchLabels"]
    assert selector.items() <= web_service["metadata"]["labels"].items()
    # Scraped with the token /metrics asks for, from the Secret the pods read it from.
    assert endpoint["authorization"]["credentials"] == {
        "name": "ezmax-secrets",
        "key": "METRICS_TOKEN",
    }


def test_workers_scale_on_queued_plus_running_rows_of_their_own_job_table(docs):
    """Each query names a real table and the kind's real status words: run against this test
    database, it counts the rows the models count."""
    from django.apps import apps

    tables = {model._meta.db_table for model in apps.get_models()}
    for doc in (d for d in docs if d["kind"] == "ScaledObject"):
        kind = doc["metadata"]["name"].removeprefix("ezmax-worker-")
        [pg] = [t["metadata"] for t in doc["spec"]["triggers"] if t["type"] == "postgresql"]
        [rd] = [t["metadata"] for t in doc["spec"]["triggers"] if t["type"] == "redis"]
        assert pg["connectionFromEnv"] == "DATABASE_URL"
        named = {word for word in pg["query"].replace("(", " ").split() if "_" in word}
        assert named & tables, pg["query"]
        assert rd["listName"] == kind  # Celery's Redis list is the queue's name
        assert rd["addressFromEnv"] in one(docs, "ConfigMap", "ezmax-config")["data"]


@pytest.mark.django_db
def test_the_documents_query_counts_queued_and_rendering_documents(docs):
    from django.db import connection

    doc = one(docs, "ScaledObject", "ezmax-worker-documents")
    [pg] = [t["metadata"] for t in doc["spec"]["triggers"] if t["type"] == "postgresql"]
    from quotes.models import Document, DocumentStatus

    assert Document.RUNNING == DocumentStatus.RENDERING == "rendering"
    with connection.cursor() as cursor:
        cursor.execute(pg["query"].replace("now()", "CURRENT_TIMESTAMP"))
        assert cursor.fetchone()[0] == 0  # an empty table; the SQL itself ran


def test_web_has_readiness_and_liveness_probes_on_health(docs):
    [container] = one(docs, "Deployment", "ezmax-web")["spec"]["template"]["spec"]["containers"]
    for probe in ("readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == "/health/"
        headers = {h["name"]: h["value"] for h in get["httpHeaders"]}
        # A host the settings allow (else a 400), the scheme the ingress sends (else a redirect).
        allowed = one(docs, "ConfigMap", "ezmax-config")["data"]["ALLOWED_HOSTS"].split(",")
        assert headers["Host"] in allowed
        assert headers["X-Forwarded-Proto"] == "https"
    assert container["command"] == ["gunicorn", "config.wsgi:application"]


def test_a_stopped_web_pod_lets_every_request_under_way_finish(docs, monkeypatch):
    """On SIGTERM gunicorn finishes what it holds for its graceful_timeout: at least as long as a
    request may run (its timeout), and the pod's grace period longer still, or the kubelet's
    SIGKILL cuts what gunicorn would have finished (its default of 30 s cut 60 s requests)."""
    import runpy

    monkeypatch.delenv("GUNICORN_TIMEOUT", raising=False)
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert conf["graceful_timeout"] >= conf["timeout"] == settings.GUNICORN_TIMEOUT
    pod = one(docs, "Deployment", "ezmax-web")["spec"]["template"]["spec"]
    assert pod["terminationGracePeriodSeconds"] > conf["graceful_timeout"]


def test_a_worker_per_queue_kind_and_one_beat_recreated(docs):
    names = deployments(docs)
    for kind in WORKER_KINDS:
        command = " ".join(names[f"ezmax-worker-{kind}"]["spec"]["template"]["spec"]
                           ["containers"][0]["command"])  # fmt: skip
        assert f"-Q {kind} " in command
    beat = names["ezmax-beat"]["spec"]
    assert beat["replicas"] == 1
    assert beat["strategy"] == {"type": "Recreate"}
    # Longer than a job's hard limit: a scaled-in documents worker finishes its render.
    grace = names["ezmax-worker-documents"]["spec"]["template"]["spec"]
    assert grace["terminationGracePeriodSeconds"] > settings.JOB_TIME_LIMIT_SECONDS
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1
    assert settings.CELERY_TASK_ACKS_LATE is True


def test_budgets_cover_web_and_every_worker_kind(docs):
    budgets = [d for d in docs if d["kind"] == "PodDisruptionBudget"]
    for name, deployment in deployments(docs).items():
        if name == "ezmax-beat":
            continue
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        covering = [b for b in budgets if b["spec"]["selector"]["matchLabels"].items()
                    <= labels.items()]  # fmt: skip
        assert len(covering) == 1, name
        assert covering[0]["spec"]["maxUnavailable"] == 1


def test_web_autoscales_on_cpu_with_the_overlays_range(docs):
    hpa = one(docs, "HorizontalPodAutoscaler", "ezmax-web")["spec"]
    assert hpa["scaleTargetRef"]["name"] == "ezmax-web"
    assert [m["resource"]["name"] for m in hpa["metrics"]] == ["cpu"]
    assert (hpa["minReplicas"], hpa["maxReplicas"]) == (2, 10)  # the overlay's, not the base's
    web = one(docs, "Deployment", "ezmax-web")["spec"]
    assert "replicas" not in web  # the HPA owns the count
    [container] = web["template"]["spec"]["containers"]
    assert container["resources"]["requests"]["cpu"]  # the HPA's utilisation is of this


def test_worker_replica_ranges_are_the_overlays(docs):
    """Every autoscaled worker's minimum and maximum come from the overlay, not the base's 1-2."""
    patches = yaml.safe_load_all((OVERLAY / "replicas.yaml").read_text())
    ranges = {
        patch["metadata"]["name"]: (patch["spec"]["minReplicaCount"],
                                    patch["spec"]["maxReplicaCount"])
        for patch in patches
        if patch and patch["kind"] == "ScaledObject"
    }  # fmt: skip
    assert sorted(ranges) == [f"ezmax-worker-{kind}" for kind in AUTOSCALED_WORKERS]
    base = render(K8S / "base")
    for name, (low, high) in ranges.items():
        spec = one(docs, "ScaledObject", name)["spec"]
        assert (spec["minReplicaCount"], spec["maxReplicaCount"]) == (low, high), name
    documents = one(base, "ScaledObject", "ezmax-worker-documents")["spec"]["maxReplicaCount"]
    assert ranges["ezmax-worker-documents"][1] > documents  # the busy quarter's 8, not 2


def test_the_migration_job_runs_inits_steps_and_everything_else_waits_for_it(docs):
    job = one(docs, "Job", "ezmax-migrate")["spec"]["template"]["spec"]
    script = job["containers"][0]["command"][-1]
    # docker-compose's init, without the demo users: the catalog only when `shell` says empty.
    assert re.findall(r"manage\.py (\w+)", script) == [
        "migrate",
        "setup_roles",
        "shell",
        "load_catalog",
    ]
    assert "CATALOG_IS_EMPTY" in script
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    [variable] = [v for v in job["containers"][0]["env"] if v["name"] == "CATALOG_IS_EMPTY"]
    assert variable["value"] == compose["services"]["init"]["environment"]["CATALOG_IS_EMPTY"]
    for name, deployment in deployments(docs).items():
        spec = deployment["spec"]["template"]["spec"]
        [wait] = spec["initContainers"]
        assert "migrate --check" in " ".join(wait["command"]), name
        assert "manage.py" not in " ".join(spec["containers"][0]["command"]), name


def test_no_secret_is_inline_and_every_pod_reads_the_named_secret(docs):
    assert not [d for d in docs if d["kind"] == "Secret"]
    for name, spec in pod_specs(docs):
        for container in spec["containers"] + spec.get("initContainers", []):
            refs = [source["secretRef"]["name"] for source in container.get("envFrom", [])
                    if "secretRef" in source]  # fmt: skip
            assert refs == ["ezmax-secrets"], name
            for variable in container.get("env", []):
                assert variable["name"] not in ("SECRET_KEY", "DATABASE_URL", "METRICS_TOKEN")
    config = one(docs, "ConfigMap", "ezmax-config")["data"]
    assert not {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "METRICS_TOKEN"} & config.keys()
    # The example lists the keys, with placeholders only, and no kustomization includes it.
    example = yaml.safe_load((K8S / "secret.example.yaml").read_text())
    assert all("CHANGE-ME" in value for key, value in example["stringData"].items()
               if key != "REDIS_URL")  # fmt: skip
    for kustomization in K8S.rglob("kustomization.yaml"):
        parsed = yaml.safe_load(kustomization.read_text())
        assert "secretGenerator" not in parsed
        assert not [r for r in parsed["resources"] if "secret" in r]


def test_root_filesystems_are_read_only_with_the_writable_paths_mounted(docs):
    for name, spec in pod_specs(docs):
        assert spec["securityContext"]["runAsNonRoot"] is True
        volumes = {v["name"]: v for v in spec["volumes"]}
        for container in spec["containers"] + spec.get("initContainers", []):
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True, name
            assert security["allowPrivilegeEscalation"] is False
            mounts = {m["mountPath"]: volumes[m["name"]] for m in container["volumeMounts"]}
            assert "emptyDir" in mounts["/tmp"], name
            resources = container["resources"]
            assert resources["requests"]["memory"], name
            assert resources["limits"]["memory"], name
        main = spec["containers"][0]
        mounts = {m["mountPath"]: volumes[m["name"]] for m in main["volumeMounts"]}
        if name.startswith(("ezmax-web", "ezmax-worker")):
            claim = mounts["/app/media"]["persistentVolumeClaim"]["claimName"]
            assert claim == "ezmax-media"
            pvc = one(docs, "PersistentVolumeClaim", claim)
            assert pvc["spec"]["accessModes"] == ["ReadWriteMany"]  # every pod mounts it
    config = one(docs, "ConfigMap", "ezmax-config")["data"]
    assert config["MEDIA_ROOT"] == "/app/media"
    assert config["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")


@pytest.mark.django_db
def test_in_the_cluster_only_the_token_reads_metrics(docs, client, settings):
    """Any pod can reach a web pod directly and write its own X-Forwarded-For, which is the
    address judged behind the ingress (NUM_PROXIES): the ConfigMap trusts no address."""
    import environ

    config = one(docs, "ConfigMap", "ezmax-config")["data"]
    settings.NUM_PROXIES = int(config["NUM_PROXIES"])
    settings.METRICS_ALLOWED_NETWORKS = environ.Env.parse_value(
        config["METRICS_ALLOWED_NETWORKS"], list
    )
    settings.METRICS_TOKEN = "a-long-random-scrape-token"
    # Another pod, claiming to be loopback; then a request from inside the pod itself.
    forged = {"REMOTE_ADDR": "10.42.0.7", "HTTP_X_FORWARDED_FOR": "127.0.0.1"}
    assert client.get("/metrics", **forged).status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404
    scraper = {"HTTP_AUTHORIZATION": "Bearer a-long-random-scrape-token"}
    assert client.get("/metrics", **forged, **scraper).status_code == 200


# --- Worker metrics, Redis authentication, the backup CronJob ------------------------------------


def worker_deployments(docs: list[dict]) -> dict[str, dict]:
    return {name: d for name, d in deployments(docs).items() if name.startswith("ezmax-worker-")}


def selects(selector: dict, labels: dict[str, str]) -> bool:
    """A label selector's matchLabels and matchExpressions (In, NotIn, Exists) against labels."""
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for expression in selector.get("matchExpressions", []):
        value, operator = labels.get(expression["key"]), expression["operator"]
        if operator == "In" and value not in expression["values"]:
            return False
        if operator == "NotIn" and value in expression["values"]:
            return False
        if operator == "Exists" and value is None:
            return False
    return True


def test_every_worker_serves_its_task_figures_to_the_pod_monitor(docs):
    [monitor] = [d for d in docs if d["kind"] == "PodMonitor"]
    [endpoint] = monitor["spec"]["podMetricsEndpoints"]
    assert endpoint["path"] == "/metrics"
    workers = worker_deployments(docs)
    assert sorted(workers) == [f"ezmax-worker-{kind}" for kind in WORKER_KINDS]
    for name, deployment in workers.items():
        [container] = deployment["spec"]["template"]["spec"]["containers"]
        env = {v["name"]: v["value"] for v in container.get("env", [])}
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        # The port the worker listens on (WORKER_METRICS_PORT) is the one the monitor scrapes.
        assert ports[endpoint["port"]] == int(env["WORKER_METRICS_PORT"]), name
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert selects(monitor["spec"]["selector"], labels), name
    for name, deployment in deployments(docs).items():
        if name not in workers:  # web has its ServiceMonitor; beat runs no task
            labels = deployment["spec"]["template"]["metadata"]["labels"]
            assert not selects(monitor["spec"]["selector"], labels), name
    # Pool processes sum through the multiprocess folder, on the writable /tmp.
    assert one(docs, "ConfigMap", "ezmax-config")["data"]["PROMETHEUS_MULTIPROC_DIR"]
    assert endpoint["authorization"]["credentials"] == {
        "name": "ezmax-secrets",
        "key": "METRICS_TOKEN",
    }


def test_selects_refuses_labels_outside_an_in_expression():
    selector = {"matchExpressions": [{"key": "c", "operator": "In", "values": ["a"]}]}
    assert selects(selector, {"c": "a"})
    assert not selects(selector, {"c": "b"})
    assert not selects(selector, {})


def test_every_redis_trigger_authenticates_with_the_password_from_the_secret(docs):
    example = yaml.safe_load((K8S / "secret.example.yaml").read_text())["stringData"]
    triggers = [
        (doc["metadata"], trigger)
        for doc in docs
        if doc["kind"] == "ScaledObject"
        for trigger in doc["spec"]["triggers"]
        if trigger["type"] == "redis"
    ]
    assert len(triggers) == len(AUTOSCALED_WORKERS)
    for metadata, trigger in triggers:
        # No password inline, nor from the scaled pods' environment.
        assert not {"password", "passwordFromEnv"} & trigger["metadata"].keys()
        auth = one(docs, "TriggerAuthentication", trigger["authenticationRef"]["name"])
        assert auth["metadata"].get("namespace") == metadata.get("namespace") == "ezmax"
        [reference] = auth["spec"]["secretTargetRef"]
        assert reference["parameter"] == "password"
        assert reference["name"] == "ezmax-secrets"
        assert reference["key"] in example  # the key the Secret is documented to hold
    assert "REDIS_PASSWORD" not in one(docs, "ConfigMap", "ezmax-config")["data"]


def backup_job(docs: list[dict]) -> tuple[dict, dict]:
    cronjob = one(docs, "CronJob", "ezmax-backup")
    return cronjob["spec"], cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def test_a_scheduled_backup_runs_the_backup_command_one_at_a_time(docs):
    from django.core.management import get_commands

    spec, pod = backup_job(docs)
    assert len(spec["schedule"].split()) == 5  # a cron line (the schema takes any string)
    assert spec["concurrencyPolicy"] == "Forbid"
    assert spec["successfulJobsHistoryLimit"] >= 1
    assert spec["failedJobsHistoryLimit"] >= 1
    # A hung run ends, so Forbid does not skip every later night.
    assert spec["jobTemplate"]["spec"]["activeDeadlineSeconds"] < 24 * 3600
    [container] = pod["containers"]
    script = container["command"][-1]
    assert re.findall(r"manage\.py (\w+)", script) == ["backup"]
    assert "backup" in get_commands()
    assert container["command"][:2] == ["sh", "-ec"]  # a failed dump fails the Job


def test_the_backup_reads_the_document_store_and_writes_only_its_own_claim(docs):
    _, pod = backup_job(docs)
    [container] = pod["containers"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    media = mounts["/app/media"]
    assert media["readOnly"] is True
    assert volumes[media["name"]]["persistentVolumeClaim"] == {
        "claimName": "ezmax-media",
        "readOnly": True,
    }
    assert one(docs, "ConfigMap", "ezmax-config")["data"]["MEDIA_ROOT"] == "/app/media"
    env = {v["name"]: v["value"] for v in container["env"]}
    archives = mounts[env["TMPDIR"]]  # pg_dump's file goes to the backup claim
    assert not archives.get("readOnly")
    claim = volumes[archives["name"]]["persistentVolumeClaim"]["claimName"]
    assert one(docs, "PersistentVolumeClaim", claim)["spec"]["resources"]["requests"]["storage"]
    assert claim != "ezmax-media"
    assert f"{env['TMPDIR']}/ezmax-" in container["command"][-1]
    assert int(env["BACKUP_KEEP"]) >= 1


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db
def test_the_backup_script_writes_an_archive_and_keeps_the_newest(
    docs, postgres_required, settings, tmp_path
):
    """The CronJob's own script, run here with the backup claim at a temporary folder: each run
    writes an archive that `manage.py backup` wrote (its manifest inside), a crashed run's leftovers
    are cleared, and only the newest BACKUP_KEEP archives stay."""
    import json
    import os
    import sys
    import tarfile
    import time

    from tests.conftest import worker_env

    _, pod = backup_job(docs)
    [container] = pod["containers"]
    folder = tmp_path / "backups"
    folder.mkdir()
    script = container["command"][-1].replace("/backups", str(folder))
    (folder / "ezmax-20000101T000000Z.tar.partial").write_bytes(b"left by a killed run")
    (folder / "ezmax-backup-abc123").mkdir()
    env = {
        **worker_env(settings),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "TMPDIR": str(folder),
        "BACKUP_KEEP": "2",
    }
    written = []
    for _ in range(3):
        done = subprocess.run(["sh", "-ec", script], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        written.append(max(folder.glob("ezmax-*.tar")))
        time.sleep(1.1)  # archives are named by the second
    assert len(set(written)) == 3
    kept = sorted(folder.iterdir())
    assert kept == written[1:]  # BACKUP_KEEP: the two newest of three, nothing else
    with tarfile.open(kept[-1]) as archive:
        manifest = json.load(archive.extractfile("manifest.json"))
        assert "database.dump" in archive.getnames()
    assert manifest["database"] == "postgresql"
