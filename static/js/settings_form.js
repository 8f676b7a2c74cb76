// A settings form asks only what applies: a field marked data-shown-when="boards"
// data-shown-values="pasted" (games/core/forms.py) shows while the "boards" setting has one of
// those values, and hides (its value still sent, the server reads it only when it applies)
// otherwise.
(function () {
  "use strict";

  function current(form, name) {
    const control = form.elements[name];
    if (!control) return null;
    if (control instanceof RadioNodeList) return control.value;
    return control.type === "checkbox" ? String(control.checked) : control.value;
  }

  function update(form) {
    for (const field of form.querySelectorAll("[data-shown-when]")) {
      const values = field.dataset.shownValues.split(" ");
      const box = field.closest("p") || field;
      box.hidden = !values.includes(current(form, field.dataset.shownWhen));
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    for (const form of document.querySelectorAll("form.settings")) {
      if (!form.querySelector("[data-shown-when]")) continue;
      update(form);
      form.addEventListener("change", () => update(form));
    }
  });
})();
