/**
 * How hpnb's dashboards look (colours, digits of numbers, axis rules): one
 * JavaScript module of the Python package, which the cell's dashboard reads
 * too, bundled here by the extension's build.
 */

export * from '../../hpnb/jupyter/dashboard/look.js';
