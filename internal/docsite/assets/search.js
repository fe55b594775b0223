// The catalogue's search box: matches every typed word against the ids,
// titles and texts of window.plumblineSearch (search-index.js), in the page,
// with no request to anywhere.
(function () {
  "use strict";
  var input = document.getElementById("search");
  var list = document.getElementById("search-results");
  var entries = window.plumblineSearch || [];
  var root = document.body.getAttribute("data-root") || "";

  function words(text) {
    return text.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean);
  }

  function find(query) {
    var typed = words(query);
    if (typed.length === 0) { return []; }
    return entries.filter(function (e) {
      var hay = (e.id + " " + e.title + " " + e.text).toLowerCase();
      return typed.every(function (w) { return hay.indexOf(w) >= 0; });
    }).slice(0, 12);
  }

  function show(found, query) {
    list.textContent = "";
    if (query.trim() === "") { list.hidden = true; return; }
    if (found.length === 0) {
      var none = document.createElement("li");
      none.className = "empty";
      none.textContent = "Nothing matches.";
      list.appendChild(none);
    }
    found.forEach(function (e) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = root + e.url;
      a.textContent = e.title;
      var kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = e.kind + " " + e.id;
      a.appendChild(kind);
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = false;
  }

  input.addEventListener("input", function () { show(find(input.value), input.value); });
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") {
      var first = list.querySelector("a");
      if (first) { window.location.href = first.href; }
    }
  });
})();
