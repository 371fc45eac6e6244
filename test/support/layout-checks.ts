import type { Page } from 'playwright-core';

/**
 * What is wrong with a table's layout as the page lays it out, measured with
 * getBoundingClientRect: a cell outside the table's box or wider than itself, two cells of a row
 * overlapping, a `.wrapping-url` outside its cell or over another, or wrapped anywhere but
 * at a separator (before or after it). Empty when every column fits.
 */
export async function tableLayoutProblems(page: Page, tableSelector: string): Promise<string[]> {
  const script = `(() => {
    const problems = [];
    const table = document.querySelector(${JSON.stringify(tableSelector)});
    if (!table) return ['no table ' + ${JSON.stringify(tableSelector)}];
    const frame = (table.closest('.table-wrap') ?? table).getBoundingClientRect();
    const outside = (inner, outer) =>
      inner.left < outer.left - 0.5 || inner.right > outer.right + 0.5 ||
      inner.top < outer.top - 0.5 || inner.bottom > outer.bottom + 0.5;
    const overlap = (a, b) =>
      Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
      Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    const wrapper = table.closest('.table-wrap');
    if (wrapper && wrapper.scrollWidth > wrapper.clientWidth) problems.push('the table scrolls sideways');
    table.querySelectorAll('tbody tr').forEach((row, r) => {
      const cells = [...row.children];
      const name = (cell) => 'row ' + r + ' ' + (cell.dataset.label ?? cell.textContent);
      cells.forEach((cell, i) => {
        const box = cell.getBoundingClientRect();
        if (outside(box, frame)) problems.push(name(cell) + ' is outside the table');
        if (cell.scrollWidth > cell.clientWidth + 0.5) problems.push(name(cell) + ' overflows its cell');
        for (const other of cells.slice(i + 1)) {
          if (overlap(box, other.getBoundingClientRect())) {
            problems.push(name(cell) + ' overlaps ' + name(other));
          }
        }
      });
      row.querySelectorAll('.wrapping-url').forEach((url) => {
        const cell = url.closest('td, th');
        const box = url.getBoundingClientRect();
        if (outside(box, cell.getBoundingClientRect())) problems.push(name(cell) + ': the URL leaves its cell');
        for (const other of cells) {
          if (other !== cell && overlap(box, other.getBoundingClientRect())) {
            problems.push(name(cell) + ': the URL overlaps ' + name(other));
          }
        }
        if (url.title !== url.textContent) problems.push(name(cell) + ': the whole URL is not its title');
        let lastTop;
        let lastChar = '';
        const separator = (char) => '/.-_?&=#:'.includes(char);
        const walker = document.createTreeWalker(url, NodeFilter.SHOW_TEXT);
        for (let text = walker.nextNode(); text; text = walker.nextNode()) {
          for (let at = 0; at < text.data.length; at += 1) {
            const range = document.createRange();
            range.setStart(text, at);
            range.setEnd(text, at + 1);
            const top = range.getBoundingClientRect().top;
            const char = text.data[at];
            const wrapped = lastTop !== undefined && top > lastTop + 2;
            if (wrapped && !separator(char) && !separator(lastChar)) {
              problems.push(name(cell) + ': the URL wraps inside ' + JSON.stringify(lastChar + char));
            }
            lastTop = top;
            lastChar = char;
          }
        }
      });
    });
    return problems;
  })()`;
  return page.evaluate<string[]>(script);
}

/**
 * The links of a navigation (by its label) that say they are the page shown (`aria-current`),
 * and those drawn as such (an underline of the tabs' accent).
 */
export async function currentLinks(
  page: Page,
  navLabel: string,
): Promise<{ current: string[]; highlighted: string[] }> {
  return page.evaluate<{ current: string[]; highlighted: string[] }>(`(() => {
    const links = [...document.querySelectorAll('nav[aria-label=${JSON.stringify(navLabel)}] a')];
    const text = (link) => link.textContent.trim();
    return {
      current: links.filter((link) => link.getAttribute('aria-current') === 'page').map(text),
      highlighted: links
        .filter((link) => parseFloat(getComputedStyle(link).borderBottomWidth) >= 3)
        .map(text),
    };
  })()`);
}

/** How many lines the element's text takes, as the page lays it out (its text's line tops). */
export async function lineCount(page: Page, selector: string): Promise<number> {
  return page.evaluate<number>(`(() => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector(${JSON.stringify(selector)}));
    return new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size;
  })()`);
}
