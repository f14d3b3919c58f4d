// Reads the .d.ts files under a folder with the TypeScript compiler API and
// prints one JSON object: {"tools": [...], "errors": [...]}. Each exported
// function is one tool: its parameters the input schema, its return type
// (a Promise unwrapped) the result schema, its doc comment the description and
// its @read / @write tag the kind. Nothing of the user's code is run: the
// compiler only parses and type-checks the declarations.
//
//   node extract.mjs DIR
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const MAX_DEPTH = 6;

function declarationFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") out.push(...declarationFiles(full));
    else if (entry.isFile() && entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out.sort();
}

function schemaOf(checker, type, node, depth, seen) {
  const f = ts.TypeFlags;
  if (depth > MAX_DEPTH) return {};
  if (type.flags & (f.Any | f.Unknown)) return {};
  if (type.flags & f.StringLiteral) return { type: "string", const: type.value };
  if (type.flags & f.NumberLiteral) return { type: "number", const: type.value };
  if (type.flags & f.BooleanLiteral) return { type: "boolean", const: checker.typeToString(type) === "true" };
  if (type.flags & f.String) return { type: "string" };
  if (type.flags & f.Number) return { type: "number" };
  if (type.flags & f.BigInt) return { type: "integer" };
  if (type.flags & f.Boolean) return { type: "boolean" };
  if (type.flags & (f.Null | f.Undefined | f.Void)) return { type: "null" };
  if (type.flags & f.Union) {
    const members = type.types.filter((t) => !(t.flags & (f.Undefined | f.Void)));
    if (members.length === 1) return schemaOf(checker, members[0], node, depth, seen);
    if (members.every((t) => t.flags & f.BooleanLiteral)) return { type: "boolean" };
    if (members.every((t) => t.flags & (f.StringLiteral | f.NumberLiteral)))
      return { enum: members.map((t) => t.value) };
    return { anyOf: members.map((t) => schemaOf(checker, t, node, depth + 1, seen)) };
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const args = checker.getTypeArguments(type);
    return { type: "array", items: args.length ? schemaOf(checker, args[0], node, depth + 1, seen) : {} };
  }
  if (type.flags & f.Object) {
    if (seen.has(type)) return { type: "object" };  // a recursive type: cut open here
    const inner = new Set(seen).add(type);
    const properties = {};
    const required = [];
    for (const prop of checker.getPropertiesOfType(type)) {
      const propType = checker.getTypeOfSymbolAtLocation(prop, node);
      properties[prop.name] = schemaOf(checker, propType, node, depth + 1, inner);
      const doc = ts.displayPartsToString(prop.getDocumentationComment(checker));
      if (doc) properties[prop.name].description = doc;
      if (!(prop.flags & ts.SymbolFlags.Optional)) required.push(prop.name);
    }
    const schema = { type: "object", properties };
    if (required.length) schema.required = required;
    const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
    if (index) schema.additionalProperties = schemaOf(checker, index.type, node, depth + 1, inner);
    return schema;
  }
  return {};
}

function unwrapPromise(checker, type) {
  const symbol = type.getSymbol();
  if (symbol && symbol.name === "Promise") {
    const args = checker.getTypeArguments(type);
    if (args.length) return args[0];
  }
  return type;
}

function toolOf(checker, symbol, decl, file, dir) {
  const signature = checker.getSignatureFromDeclaration(decl);
  const properties = {};
  const required = [];
  const paramDocs = {};
  for (const tag of ts.getJSDocTags(decl)) {
    if (ts.isJSDocParameterTag(tag) && tag.comment)
      paramDocs[tag.name.getText()] = ts.getTextOfJSDocComment(tag.comment);
  }
  for (const param of decl.parameters) {
    const name = param.name.getText();
    const type = checker.getTypeAtLocation(param);
    properties[name] = schemaOf(checker, type, param, 0, new Set());
    if (paramDocs[name]) properties[name].description = paramDocs[name];
    if (!param.questionToken && !param.initializer && !param.dotDotDotToken) required.push(name);
  }
  const input = { type: "object", properties };
  if (required.length) input.required = required;
  const returned = unwrapPromise(checker, checker.getReturnTypeOfSignature(signature));
  const result = returned.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)
    ? null : schemaOf(checker, returned, decl, 0, new Set());
  const tags = symbol.getJsDocTags(checker).map((t) => t.name);
  return {
    name: symbol.name,
    description: ts.displayPartsToString(symbol.getDocumentationComment(checker)),
    read: tags.includes("read"),
    write: tags.includes("write"),
    input_schema: input,
    result_schema: result,
    module: path.relative(dir, file).split(path.sep).join("/"),
  };
}

function main() {
  const dir = path.resolve(process.argv[2] || ".");
  const files = declarationFiles(dir);
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true, strict: true });
  const checker = program.getTypeChecker();
  const errors = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    if (!d.file || !files.includes(path.resolve(d.file.fileName))) continue;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    errors.push({ place: `${d.file.fileName}:${line + 1}:${character + 1}`,
                  reason: ts.flattenDiagnosticMessageText(d.messageText, " ") });
  }
  const tools = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (let symbol of checker.getExportsOfModule(moduleSymbol)) {
      if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const decl = (symbol.declarations || []).find(ts.isFunctionDeclaration);
      if (decl) tools.push(toolOf(checker, symbol, decl, decl.getSourceFile().fileName, dir));
    }
  }
  process.stdout.write(JSON.stringify({ files: files.length, tools, errors }));
}

main();
