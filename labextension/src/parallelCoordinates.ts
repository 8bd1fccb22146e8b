/**
 * The parallel-coordinates renderer (canvas and SVG, no WebGL) that the Lab
 * view shares with the cell's dashboard: one JavaScript module of the Python
 * package, bundled here by the extension's build.
 */

export * from '../../hpnb/jupyter/dashboard/parallel_coordinates.js';
