// The VS Code side of optimist's language server: it starts `optimist lsp`
// (the binary named by the `optimist.server.path` setting) for `.gc` files
// and leaves everything else to the server. Plain JavaScript, so the
// extension needs no build step.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration('optimist').get('server.path') || 'optimist';
  const server = { command, args: ['lsp'] };
  client = new LanguageClient(
    'optimist',
    'optimist language server',
    { run: server, debug: server },
    { documentSelector: [{ language: 'optimist' }] }
  );
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('optimist.server.path')) {
        vscode.window.showInformationMessage('optimist: reload the window to use the new server path.');
      }
    })
  );
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
