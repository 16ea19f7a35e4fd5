// The copy button of a code block copies code that runs: in an example written as a doctest
// (">>> " and "... " prompts followed by the expected output), the prompts and the output lines
// are left out. Material's copy button copies the text of the nearest [data-copy] element when
// there is one, so the runnable text is put there once per page.
(function () {
  "use strict";

  function runnable(text) {
    var lines = text.replace(/\n$/, "").split("\n");
    if (!lines.some(function (line) { return /^>>>( |$)/.test(line); })) {
      return null;
    }
    var code = [];
    lines.forEach(function (line) {
      if (/^(>>>|\.\.\.)( |$)/.test(line)) {
        code.push(line.slice(4));
      }
    });
    return code.join("\n");
  }

  function mark(root) {
    root.querySelectorAll("pre > code").forEach(function (block) {
      if (block.hasAttribute("data-copy")) {
        return;
      }
      var code = runnable(block.textContent);
      if (code !== null) {
        block.setAttribute("data-copy", code);
      }
    });
  }

  window.ragmeterRunnableCode = runnable;
  if (typeof document$ !== "undefined") {
    document$.subscribe(function () { mark(document); });
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { mark(document); });
  } else {
    mark(document);
  }
})();
