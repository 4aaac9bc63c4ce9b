// Validates Kubernetes objects against the Kubernetes API's OpenAPI schemas (issue 15), offline:
// the npm packages kubernetes-models (the built-in kinds) and @kubernetes-models/prometheus-operator
// (ServiceMonitor, PrometheusRule), whose validators are generated from the API's schemas (types,
// required fields, enums, formats). Used by tests/e2e/test_deploy_kubernetes.py.
//
//   node k8s_schema_check.mjs < objects.json      (a JSON array of objects, as parsed from YAML)
//
// Prints one JSON line per object: {"kind", "name", "ok", "errors": [...]}; exits 1 when any is
// invalid or of a kind it has no schema for, 2 on bad input.
import { readFileSync } from "node:fs";

// apiVersion -> the module folder of its models.
function modelModule(apiVersion, kind) {
  if (apiVersion.startsWith("monitoring.coreos.com/")) {
    return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  }
  return `kubernetes-models/${apiVersion}/${kind}`;  // "v1/Service", "apps/v1/DaemonSet"
}

let objects;
try {
  objects = JSON.parse(readFileSync(0, "utf8"));
  if (!Array.isArray(objects)) throw new Error("expected a JSON array of Kubernetes objects");
} catch (e) {
  console.error(`k8s_schema_check: ${e.message}`);
  process.exit(2);
}

let failed = false;
for (const object of objects) {
  const kind = object?.kind, apiVersion = object?.apiVersion;
  const result = { kind: kind ?? null, name: object?.metadata?.name ?? null, ok: false, errors: [] };
  if (typeof kind !== "string" || typeof apiVersion !== "string") {
    result.errors.push("no apiVersion or kind");
  } else {
    let Model = null;
    try {
      Model = (await import(modelModule(apiVersion, kind)))[kind];
    } catch (e) {
      result.errors.push(`no schema for ${apiVersion} ${kind} (${e.code ?? e.message})`);
    }
    if (Model) {
      try {
        new Model(object).validate();
        result.ok = true;
      } catch (e) {
        result.errors = (e.errors ?? [{ instancePath: "", message: e.message }]).map(
          (err) => `${err.instancePath || "/"} ${err.message ?? JSON.stringify(err.params)}`);
      }
    }
  }
  failed ||= !result.ok;
  console.log(JSON.stringify(result));
}
process.exit(failed ? 1 : 0);
