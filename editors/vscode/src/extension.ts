// The Assay extension starts `assay lsp` and connects VS Code to it. All
// language features come from the server; this file only starts, restarts
// and stops it.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

let client: LanguageClient | undefined;

function newClient(): LanguageClient {
  const cfg = vscode.workspace.getConfiguration("assay");
  const command = cfg.get<string>("server.path", "assay");
  const args = cfg.get<string[]>("server.args", ["lsp"]);
  const pattern = cfg.get<string>("files", "**/*.{hcl,cue}");
  // TransportKind.stdio passes --stdio, which assay lsp accepts.
  const server: ServerOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  const options: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "hcl", pattern },
      { scheme: "file", language: "cue", pattern },
      { scheme: "untitled", language: "hcl" },
      { scheme: "untitled", language: "cue" },
    ],
  };
  return new LanguageClient("assay", "Assay", server, options);
}

async function start(): Promise<void> {
  client = newClient();
  try {
    await client.start();
  } catch (err) {
    const path = vscode.workspace.getConfiguration("assay").get<string>("server.path", "assay");
    void vscode.window.showErrorMessage(
      `Assay: cannot start "${path} lsp" (${String(err)}). Install assay or set assay.server.path.`,
    );
  }
}

async function stop(): Promise<void> {
  if (client) {
    const c = client;
    client = undefined;
    if (c.isRunning()) {
      await c.stop();
    }
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("assay.restartServer", async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("assay")) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
