// Client-side search of /kb/: hide the entries whose text does not contain every word typed.
(function () {
  "use strict";
  var box = document.getElementById("search-box");
  var input = document.getElementById("search");
  var none = document.getElementById("no-match");
  if (!box || !input) { return; }
  box.hidden = false;
  input.addEventListener("input", function () {
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    document.querySelectorAll("li.entry").forEach(function (li) {
      var text = li.getAttribute("data-search") || "";
      var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
      li.hidden = !hit;
      if (hit) { shown += 1; }
    });
    document.querySelectorAll(".group").forEach(function (g) {
      g.hidden = g.querySelector("li.entry:not([hidden])") === null;
    });
    none.hidden = shown > 0;
  });
})();
