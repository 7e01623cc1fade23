// The quote page's lines grid (issue 27 item 6): move through it like a spreadsheet and see the
// amounts and totals change as you type. Saving prices again on the server, whose figures are
// the truth; these mirror quotes/pricing.py (a unit price rounded half up to the cent per line,
// VAT per rate on the sums) in whole numbers, so that what shows before saving is what saving
// gives. Without this script the grid is a plain form: Save all still saves every line.
(() => {
  const PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)$/;
  const RATE_PLACES = 8n; // exchange rates are stored with 6 decimals; 8 leave room
  const TEN = 10n;

  // `text` as a whole number of 10^-places (a BigInt), rounded half up; null if not a number.
  function scaled(text, places) {
    const t = String(text ?? "").trim();
    if (!PLAIN.test(t)) return null;
    const negative = t.startsWith("-");
    const [whole, fraction = ""] = t.replace(/^[+-]/, "").split(".");
    const digits = fraction.padEnd(Number(places) + 1, "0");
    let value = BigInt((whole || "0") + digits.slice(0, Number(places)));
    if (Number(digits[Number(places)]) >= 5) value += 1n;
    return negative ? -value : value;
  }

  function divideHalfUp(numerator, denominator) {
    if (numerator < 0n) return -divideHalfUp(-numerator, denominator);
    return (numerator + denominator / 2n) / denominator;
  }

  function money(cents) {
    const negative = cents < 0n;
    const text = (negative ? -cents : cents).toString().padStart(3, "0");
    const whole = text.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return `${negative ? "-" : ""}${whole}.${text.slice(-2)}`;
  }

  // The unit price before discounts, in the price list's currency (cents), as base_price().
  function basePrice(row, quantity) {
    const contract = scaled(row.dataset.contract, 2n);
    if (contract !== null) return contract;
    const list = scaled(row.dataset.list, 2n);
    const reached = (row.dataset.tiers || "").split(";").filter(Boolean)
      .map((tier) => tier.split(":"))
      .filter(([minimum]) => quantity >= BigInt(minimum))
      .map(([, price]) => scaled(price, 2n));
    if (reached.length && list !== null) {
      const best = reached.reduce((a, b) => (b < a ? b : a));
      if (best < list) return best;
    }
    return list;
  }

  function cellOf(row, column) {
    return row.querySelector(`input[data-col="${column}"]`);
  }

  // One grid line: {amount (cents) or null when it cannot be priced yet, valid}.
  function priceRow(row, rate) {
    const quantityInput = cellOf(row, "quantity");
    const priceInput = cellOf(row, "unit_price");
    const discountInput = cellOf(row, "discount_percent");
    const quantity = scaled(quantityInput.value, 0n);
    const discountText = discountInput.value.trim();
    const discount = discountText === "" ? 0n : scaled(discountText, 2n);
    const priceText = priceInput.value.trim();
    const override = priceText === "" ? null : scaled(priceText, 2n);
    const bad = [
      [quantityInput, quantity === null || quantity < 1n || quantityInput.value.includes(".")],
      [discountInput, discount === null || discount < 0n || discount > 10000n],
      [priceInput, priceText !== "" && (override === null || override < 0n)],
    ];
    bad.forEach(([input, isBad]) => input.classList.toggle("cell-invalid", isBad));
    if (bad.some(([, isBad]) => isBad)) return { amount: null, valid: false };
    const base = basePrice(row, quantity);
    let listUnit = null;
    if (base !== null) {
      listUnit = divideHalfUp(base * rate * (10000n - discount), TEN ** (RATE_PLACES + 4n));
      priceInput.placeholder = money(listUnit).replace(/,/g, "");
    }
    let unit = override !== null ? override : listUnit;
    if (unit === null) {
      if (!row.dataset.sku) return { amount: null, valid: true }; // to be priced: left out
      unit = 0n; // a SKU without a price: 0, as the server says ("no price")
    }
    return { amount: unit * quantity, valid: true };
  }

  function recompute(table) {
    const rate = scaled(table.dataset.exchangeRate, RATE_PLACES) ?? TEN ** RATE_PLACES;
    const bases = new Map(); // VAT percent ("13") -> base (cents)
    let subtotal = 0n;
    let optional = 0n;
    let valid = true;
    table.querySelectorAll("tbody.group").forEach((group) => {
      let groupTotal = 0n;
      group.querySelectorAll("tr[data-priced]").forEach((row) => {
        let amount;
        let isOptional = row.hasAttribute("data-optional");
        if (row.hasAttribute("data-grid-row")) {
          const priced = priceRow(row, rate);
          valid = valid && priced.valid;
          amount = priced.amount;
          const box = row.querySelector("input[name$='-is_optional']");
          if (box) isOptional = box.checked;
          row.classList.toggle("optional-line", isOptional);
          row.querySelector("[data-grid-amount]").textContent =
            amount === null ? "—" : money(amount);
        } else {
          amount = scaled(row.dataset.amount, 2n);
        }
        if (amount === null) return;
        if (isOptional) {
          optional += amount;
          return;
        }
        groupTotal += amount;
        const percent = (Number(scaled(row.dataset.taxRate, 4n)) / 100).toString();
        bases.set(percent, (bases.get(percent) || 0n) + amount);
      });
      subtotal += groupTotal;
      const sum = group.querySelector("[data-grid-sum=group]");
      if (sum) sum.textContent = money(groupTotal);
    });
    let tax = 0n;
    const taxes = new Map();
    bases.forEach((base, percent) => {
      const atRate = divideHalfUp(base * scaled(percent, 2n), 10000n);
      taxes.set(percent, atRate);
      tax += atRate;
    });
    const show = (name, cents) => document.querySelectorAll(`[data-grid-sum="${name}"]`)
      .forEach((el) => { el.textContent = money(cents); });
    show("subtotal", subtotal);
    show("tax", tax);
    show("total", subtotal + tax);
    show("optional", optional);
    document.querySelectorAll('[data-grid-sum="tax-at-rate"]').forEach((el) => {
      el.textContent = money(taxes.get(el.dataset.rate) || 0n);
    });
    return valid;
  }

  // Enter and the arrows move up and down a column, as in a spreadsheet; Tab moves across.
  function move(table, input, step) {
    const rows = Array.from(table.querySelectorAll("tr[data-grid-row]"));
    const index = rows.indexOf(input.closest("tr"));
    const target = rows[index + step] && cellOf(rows[index + step], input.dataset.col);
    if (target) {
      target.focus();
      target.select();
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    const table = document.querySelector("table[data-grid]");
    const form = table && document.getElementById(table.dataset.grid);
    if (!form) return;
    const status = form.querySelector("[data-grid-status]");
    // Sent back with errors, the cells hold what was typed: the amounts say what it comes to.
    if (form.hasAttribute("data-errors")) recompute(table);

    table.addEventListener("keydown", (event) => {
      const input = event.target;
      if (!(input instanceof HTMLInputElement) || !input.dataset.col) return;
      if (event.key === "Enter" || event.key === "ArrowDown") {
        event.preventDefault(); // Enter would submit the form, not move down
        move(table, input, 1);
      } else if (event.key === "ArrowUp") {
        event.preventDefault();
        move(table, input, -1);
      }
    });

    const changed = () => {
      recompute(table);
      if (status) status.textContent = form.dataset.unsaved || "";
    };
    table.addEventListener("input", (event) => {
      if (event.target.form === form) changed();
    });
    table.addEventListener("change", (event) => {
      if (event.target.form === form) changed();
    });

    // The category's discount fills its lines' cells at once (lines with a unit price typed by
    // hand keep it: a discount never applies on top of one); the cells are what is saved, so the
    // category is cleared and the server does not apply it a second time over later edits.
    const fill = form.querySelector("[data-grid-fill]");
    const category = form.elements.namedItem("category");
    const percent = form.elements.namedItem("category_discount");
    if (fill && category && percent) {
      fill.hidden = false;
      fill.addEventListener("click", () => {
        const value = percent.value.trim();
        const parsed = scaled(value, 2n);
        const bad = !category.value || parsed === null || parsed < 0n || parsed > 10000n;
        percent.classList.toggle("cell-invalid", Boolean(category.value) && bad);
        if (bad) {
          (category.value ? percent : category).focus();
          return;
        }
        table.querySelectorAll("tr[data-grid-row]").forEach((row) => {
          if (row.dataset.category !== category.value) return;
          if (cellOf(row, "unit_price").value.trim() !== "") return;
          cellOf(row, "discount_percent").value = value;
        });
        category.value = "";
        percent.value = "";
        changed();
      });
    }
  });
})();
