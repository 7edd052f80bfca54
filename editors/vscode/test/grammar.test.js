// Tokenizes the example specs with the extension's TextMate grammars, as
// VS Code does, and checks the scopes of a few tokens.
const { test } = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const oniguruma = require("vscode-oniguruma");
const textmate = require("vscode-textmate");

const specs = path.join(__dirname, "..", "..", "..", "specs");

async function registry() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (s) => new oniguruma.OnigScanner(s),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      const file = { "source.hcl.assay": "assay-hcl.tmLanguage.json", "source.cue.assay": "assay-cue.tmLanguage.json" }[scope];
      if (!file) return null;
      const p = path.join(__dirname, "..", "syntaxes", file);
      return textmate.parseRawGrammar(fs.readFileSync(p, "utf8"), p);
    },
  });
}

// scopes returns, for each token text of the file, the scopes it got.
function scopes(grammar, text) {
  const out = [];
  let state = textmate.INITIAL;
  for (const line of text.split("\n")) {
    const r = grammar.tokenizeLine(line, state);
    for (const t of r.tokens) {
      out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes.join(" ") });
    }
    state = r.ruleStack;
  }
  return out;
}

function find(toks, text, scope) {
  return toks.some((t) => t.text === text && t.scopes.includes(scope));
}

test("HCL: blocks, attributes, references, strings, comments, numbers", async () => {
  const reg = await registry();
  const g = await reg.loadGrammar("source.hcl.assay");
  const toks = scopes(g, fs.readFileSync(path.join(specs, "lm2lm.hcl"), "utf8"));
  assert.ok(find(toks, "role", "entity.name.type.block.hcl"), "role block");
  assert.ok(find(toks, "loop", "entity.name.type.block.hcl"), "loop block");
  assert.ok(find(toks, "learning_rate", "variable.other.property.hcl"), "attribute name");
  assert.ok(find(toks, "rwm", "variable.other.reference.hcl"), "role.rwm");
  assert.ok(find(toks, "GPT-6-sol", "string.quoted.double.hcl"), "string");
  assert.ok(find(toks, "1e-6", "constant.numeric.hcl"), "number");
  assert.ok(toks.some((t) => t.scopes.includes("comment.line.number-sign.hcl")), "comment");
  assert.ok(find(toks, "hours", "support.function.hcl"), "function call");
});

test("CUE: labels, references, strings", async () => {
  const reg = await registry();
  const g = await reg.loadGrammar("source.cue.assay");
  const toks = scopes(g, fs.readFileSync(path.join(specs, "lm2lm.cue"), "utf8"));
  assert.ok(find(toks, "learning_rate", "variable.other.property.cue"), "label");
  assert.ok(find(toks, "rwm", "variable.other.reference.cue"), "role.rwm");
  assert.ok(find(toks, "package", "keyword.control.cue"), "package");
  assert.ok(toks.some((t) => t.scopes.includes("string.quoted.double.cue")), "string");
});
