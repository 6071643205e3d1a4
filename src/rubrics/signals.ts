// The C2PA Asset Signals Rubric (Local) over a crJSON document, the way the C2PA's own
// c2pa_signals_rubric_evaluator.py runs it (conformance-public 7dbff51): the provenance graph of
// the manifests and their ingredients (a pseudo-node for each ingredient without a manifest that
// names a digital source type), each statement of the rubric evaluated by json-formula against
// each node's manifest on its own, and the output in the official format
// (asset-rubric-signals-local-output.schema.json). What a signal means is the rubric's; this
// module only walks the graph and reads the answers as truthy or not, as the evaluator does.
import { createRubricEngine, type RubricEngine } from './formula-engine.js';
import SIGNALS_RUBRIC from './built-signals.js';
import type { Rubric } from './rubric-files.js';
import { rubricLabel } from './rubric-label.js';

export interface SignalHit {
  trait: string;
  reportText: unknown;
  /** The expression matched more than one item (a list of several). */
  multiple: boolean;
}

export interface SignalsManifest {
  assertedBy: { subject: { CN: unknown; O: unknown; OU?: unknown } };
  'dc:format': unknown;
  localInceptions: SignalHit[];
  localTransformations: SignalHit[];
  ingredients: { index: number; relationship: unknown }[];
  pseudo?: true;
}

export interface SignalsOutput {
  rubricName: unknown;
  rubricVersion: unknown;
  manifests: SignalsManifest[];
}

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const field = (v: unknown, key: string): unknown => (isRecord(v) ? v[key] : undefined);
/** Python's truthiness for the values crJSON holds (None, '', 0, [] and {} are false). */
const truthy = (v: unknown): boolean =>
  v === undefined || v === null ? false : Array.isArray(v) ? v.length > 0 : isRecord(v) ? Object.keys(v).length > 0 : Boolean(v);

interface Node {
  urn: unknown;
  manifest: Json;
  edges: { parent: string; relationship: unknown }[];
  signals: SignalHit[];
  isPseudo: boolean;
  parentNodeId?: string;
  mimeType?: unknown;
  hasMimeType: boolean;
}

const manifestsOf = (crJson: unknown): unknown[] | undefined => {
  const list = field(crJson, 'manifests');
  return Array.isArray(list) ? list : undefined;
};

/** label -> its index in `manifests`, as a string (the evaluator's `create_index_mapping`). */
function indexMapping(crJson: unknown): Map<string, string> {
  const mapping = new Map<string, string>();
  (manifestsOf(crJson) ?? []).forEach((manifest, index) => {
    const label = field(manifest, 'label');
    if (truthy(label)) mapping.set(String(label), String(index));
  });
  return mapping;
}

/** The manifest URN of an ingredient's `activeManifest.url` (`self#jumbf=/c2pa/urn:c2pa:.../...`). */
function parentUrnOf(url: string): string {
  const at = url.indexOf('urn:c2pa:');
  if (at < 0) return url;
  const urn = url.slice(at);
  return urn.includes('/') ? urn.split('/')[0]! : urn;
}

const setMime = (node: Node, mime: unknown) => {
  node.mimeType = mime;
  node.hasMimeType = true;
};

/** The evaluator's `build_provenance_dag`: node id (a manifest's index as a string) -> node. */
export function buildProvenanceGraph(crJson: unknown): Map<string, Node> {
  const dag = new Map<string, Node>();
  const manifests = manifestsOf(crJson);
  if (!manifests) return dag;
  const mapping = indexMapping(crJson);
  for (const manifest of manifests) {
    const label = field(manifest, 'label');
    if (!truthy(label)) continue;
    const id = mapping.get(String(label)) ?? 'Unknown';
    const node: Node = { urn: label, manifest: manifest as Json, edges: [], signals: [], isPseudo: false, hasMimeType: false };
    const claim = field(manifest, 'claim.v2') || field(manifest, 'claim') || {};
    const mime = field(claim, 'dc:format');
    if (truthy(mime)) setMime(node, mime);
    dag.set(id, node);
  }

  let next = manifests.length;
  for (const manifest of manifests) {
    const label = field(manifest, 'label');
    if (!truthy(label)) continue;
    const id = mapping.get(String(label)) ?? 'Unknown';
    const node = dag.get(id)!;
    const assertions = field(manifest, 'assertions');
    const entries = isRecord(assertions) ? Object.entries(assertions) : [];
    for (const [key, value] of entries) {
      if (key.startsWith('c2pa.ingredient')) {
        const active = field(value, 'activeManifest');
        const url = truthy(active) ? field(active, 'url') : undefined;
        const relationship = field(value, 'relationship') ?? null;
        if (truthy(url)) {
          const parentUrn = parentUrnOf(String(url));
          const parentId = mapping.get(parentUrn) ?? parentUrn;
          node.edges.push({ parent: parentId, relationship });
          const mime = field(value, 'dc:format');
          const parent = dag.get(parentId);
          if (truthy(mime) && parent && !parent.hasMimeType) setMime(parent, mime);
        } else {
          // An ingredient without a manifest: a pseudo-node when it (or the manifest's
          // c2pa.opened action) names a digital source type.
          let dst = field(value, 'digitalSourceType');
          if (!truthy(dst)) {
            for (const [actionsKey, actionsValue] of entries) {
              if (!actionsKey.startsWith('c2pa.actions')) continue;
              const actions = field(actionsValue, 'actions');
              for (const act of Array.isArray(actions) ? actions : []) {
                if (field(act, 'action') === 'c2pa.opened' && truthy(field(act, 'digitalSourceType'))) {
                  dst = field(act, 'digitalSourceType');
                  break;
                }
              }
              if (truthy(dst)) break;
            }
          }
          if (truthy(dst)) {
            const pseudoId = String(next);
            next += 1;
            const title = field(value, 'dc:title');
            const shown = title === undefined ? 'flat-ingredient' : title === null ? 'None' : String(title);
            const safeTitle = shown.replace(/[^a-zA-Z0-9_\-.]/gu, '_');
            const pseudoLabel = `urn:c2pa:pseudo:${String(label)}:${safeTitle}_${pseudoId}`;
            const pseudoManifest: Json = {
              label: pseudoLabel,
              assertions: { 'c2pa.actions.v2': { allActionsIncluded: true, actions: [{ action: 'c2pa.created', digitalSourceType: dst }] } },
            };
            dag.set(pseudoId, {
              urn: pseudoLabel,
              manifest: pseudoManifest,
              edges: [],
              signals: [],
              isPseudo: true,
              parentNodeId: id,
              mimeType: field(value, 'dc:format') ?? null,
              hasMimeType: true,
            });
            node.edges.push({ parent: pseudoId, relationship });
          }
        }
      } else if (key.startsWith('c2pa.thumbnail')) {
        const mime = field(value, 'format');
        if (truthy(mime) && !node.hasMimeType) setMime(node, mime);
      }
    }
  }
  return dag;
}

/** The evaluator's reading of a statement's answer: a non-empty list, true, a positive number, any other non-null value. */
function answerOf(value: unknown): { hit: boolean; multiple: boolean } {
  if (Array.isArray(value)) return { hit: value.length > 0, multiple: value.length > 1 };
  if (typeof value === 'boolean') return { hit: value, multiple: false };
  if (typeof value === 'number') return { hit: value > 0, multiple: false };
  return { hit: value !== null && value !== undefined, multiple: false };
}

function subjectOf(manifest: Json): SignalsManifest['assertedBy']['subject'] {
  const subject = field(field(field(manifest, 'signature'), 'certificateInfo'), 'subject');
  const cn = field(subject, 'CN');
  const o = field(subject, 'O');
  const ou = field(subject, 'OU');
  const out: SignalsManifest['assertedBy']['subject'] = { CN: cn === undefined ? 'Unknown CN' : cn, O: o === undefined ? 'Unknown O' : o };
  if (truthy(ou)) out.OU = ou;
  return out;
}

let shipped: Rubric | undefined;

/**
 * The shipped signals rubric, read and compiled at build time (scripts/build-rubrics.mjs), parsed
 * once per process. Its built text is in this module's own output file: a signed file's check
 * loads no other for it.
 */
export function shippedSignalsRubric(): Rubric {
  return (shipped ??= JSON.parse(SIGNALS_RUBRIC) as Rubric);
}

const engines = new WeakMap<Rubric, RubricEngine>();

/** One engine per rubric per process: its functions and compiled expressions serve every file. */
function engineFor(rubric: Rubric): RubricEngine {
  let engine = engines.get(rubric);
  if (!engine) engines.set(rubric, (engine = createRubricEngine(rubric.metadata, { compiled: rubric.compiled })));
  return engine;
}

/** The official signals output for a crJSON document, with a rubric (the shipped one by default). */
export function evaluateSignals(crJson: unknown, rubric: Rubric = shippedSignalsRubric()): SignalsOutput {
  const dag = buildProvenanceGraph(crJson);
  const { search } = engineFor(rubric);
  for (const node of dag.values()) {
    for (const stmt of rubric.statements) {
      const expr = field(stmt, 'expression');
      const trait = field(stmt, 'id');
      if (!truthy(expr) || !truthy(trait)) continue;
      try {
        // Against the node's own manifest, not the whole crJSON (node-local, as the evaluator).
        const value = search(String(expr).trim(), node.manifest);
        const { hit, multiple } = answerOf(value);
        if (hit) {
          const text = field(field(field(stmt, 'reportText'), 'true'), 'en');
          node.signals.push({ trait: String(trait), reportText: text === undefined ? trait : text, multiple });
        }
      } catch {
        // The evaluator prints the error and goes on: the trait is simply not raised.
      }
    }
  }

  // Manifests first, then the pseudo-nodes, each in id order.
  const ids = [...dag.keys()].sort((a, b) => Number(dag.get(a)!.isPseudo) - Number(dag.get(b)!.isPseudo) || Number(a) - Number(b));
  const newIndex = new Map(ids.map((id, index) => [id, index]));
  const manifests = ids.map((id): SignalsManifest => {
    const node = dag.get(id)!;
    const signer = node.isPseudo ? dag.get(node.parentNodeId!)!.manifest : node.manifest;
    const ingredients: SignalsManifest['ingredients'] = [];
    for (const edge of node.edges) {
      const mapped = newIndex.get(edge.parent);
      if (mapped !== undefined) ingredients.push({ index: mapped, relationship: edge.relationship });
      else if (/^\s*[+-]?\d+\s*$/.test(edge.parent)) ingredients.push({ index: Number(edge.parent), relationship: edge.relationship });
      // else: the evaluator warns that it cannot map the URN (a manifest not in the store) and leaves it out.
    }
    const entry: SignalsManifest = {
      assertedBy: { subject: subjectOf(signer) },
      'dc:format': node.hasMimeType ? node.mimeType : null,
      localInceptions: node.signals.filter((s) => s.trait.startsWith('inception:')),
      localTransformations: node.signals.filter((s) => s.trait.startsWith('transformation:')),
      ingredients,
    };
    if (node.isPseudo) entry.pseudo = true;
    return entry;
  });
  const label = rubricLabel(rubric);
  return { rubricName: label.name, rubricVersion: label.version, manifests };
}

/** A file's signals: the official output, and which of its manifests is the file's active one. */
export interface FileSignals {
  output: SignalsOutput;
  /** Index in `output.manifests` of the active manifest; undefined when it has no entry. */
  active?: number;
}

/**
 * The signals of a crJSON document whose active manifest has the label `activeLabel` (the
 * reader's `active_manifest`). Manifests keep their crJSON order in the output (pseudo-nodes
 * come after them), less any without a label, which the evaluator skips.
 */
export function fileSignals(crJson: unknown, activeLabel: string | undefined): FileSignals {
  const output = evaluateSignals(crJson);
  const labelled = (manifestsOf(crJson) ?? []).filter((m) => truthy(field(m, 'label')));
  const at = activeLabel === undefined ? -1 : labelled.findIndex((m) => field(m, 'label') === activeLabel);
  return at >= 0 ? { output, active: at } : { output };
}
