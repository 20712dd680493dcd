// doxa's SPARQL editor: sends the query to /sparql with the key from this tab and shows the
// answer. Everything from the server is written with textContent, never parsed as HTML.
"use strict";

const KEY = "doxa-sparql-key";
const ACCEPT = "application/sparql-results+json, text/turtle;q=0.9";

function cell(row, text, tag) {
  const element = document.createElement(tag);
  element.textContent = text;
  row.appendChild(element);
}

function term(value) {
  if (value === undefined) return "";
  if (value.type === "uri") return "<" + value.value + ">";
  if (value.type === "bnode") return "_:" + value.value;
  if (value["xml:lang"]) return JSON.stringify(value.value) + "@" + value["xml:lang"];
  if (value.datatype) return JSON.stringify(value.value) + "^^<" + value.datatype + ">";
  return JSON.stringify(value.value);
}

function showTable(answer) {
  const results = document.getElementById("results");
  const table = document.createElement("table");
  table.id = "answer";
  if (answer.boolean !== undefined) {
    const row = table.insertRow();
    cell(row, "ASK", "th");
    cell(row, String(answer.boolean), "td");
  } else {
    const head = table.insertRow();
    for (const name of answer.head.vars) cell(head, "?" + name, "th");
    for (const binding of answer.results.bindings) {
      const row = table.insertRow();
      for (const name of answer.head.vars) cell(row, term(binding[name]), "td");
    }
  }
  results.appendChild(table);
}

function clear() {
  document.getElementById("results").replaceChildren();
  const graph = document.getElementById("graph");
  graph.hidden = true;
  graph.textContent = "";
  const error = document.getElementById("error");
  error.hidden = true;
  error.textContent = "";
}

function fail(message) {
  const error = document.getElementById("error");
  error.textContent = message;
  error.hidden = false;
}

async function run(event) {
  if (event) event.preventDefault();
  clear();
  const key = document.getElementById("key").value.trim();
  sessionStorage.setItem(KEY, key);
  const status = document.getElementById("status");
  status.textContent = "running…";
  const started = performance.now();
  let response;
  try {
    response = await fetch("/sparql", {
      method: "POST",
      headers: {
        "Authorization": "Bearer " + key,
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": ACCEPT,
      },
      body: new URLSearchParams({ query: document.getElementById("query").value }),
      credentials: "omit",
    });
  } catch (error) {
    status.textContent = "";
    fail("The server could not be reached: " + error);
    return;
  }
  const type = response.headers.get("content-type") || "";
  const text = await response.text();
  const took = Math.round(performance.now() - started);
  if (!response.ok) {
    status.textContent = response.status + " after " + took + " ms";
    let message = text;
    try {
      const error = JSON.parse(text).error;
      if (error && error.message) message = error.type + ": " + error.message;
    } catch (_) { /* not JSON: shown as it came */ }
    fail(message);
    return;
  }
  const truncated = response.headers.get("doxa-truncated") === "true";
  status.textContent = "done in " + took + " ms" + (truncated ? " (cut at the row cap)" : "");
  if (type.startsWith("application/sparql-results+json")) {
    showTable(JSON.parse(text));
  } else {
    const graph = document.getElementById("graph");
    graph.textContent = text;
    graph.hidden = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("key").value = sessionStorage.getItem(KEY) || "";
  document.getElementById("editor").addEventListener("submit", run);
  document.getElementById("query").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) run(event);
  });
});
