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
CUSTOM = {"keda.sh/v1alpha1": "ScaledObject", "monitoring.coreos.com/v1": "ServiceMonitor"}
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
    return [
        (d["metadata"]["name"], d["spec"]["template"]["spec"])
        for d in docs
        if d["kind"] in ("Deployment", "Job")
    ]


@pytest.mark.parametrize("path", [K8S / "base", OVERLAY], ids=["base", "production"])
def test_every_rendered_document_validates_against_the_kubernetes_schemas(path):
    docs = render(path)
    kinds = {d["kind"] for d in docs}
    assert {"Deployment", "Service", "Ingress", "Job", "PodDisruptionBudget"} <= kinds
    assert {"HorizontalPodAutoscaler", "ScaledObject", "ConfigMap"} <= kinds
    for doc in docs:
        if CUSTOM.get(doc["apiVersion"]) == doc["kind"]:
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
            [pvc] = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
            assert claim == pvc["metadata"]["name"]
            assert pvc["spec"]["accessModes"] == ["ReadWriteMany"]  # every pod mounts it
    config = one(docs, "ConfigMap", "ezmax-config")["data"]
    assert config["MEDIA_ROOT"] == "/app/media"
    assert config["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")
