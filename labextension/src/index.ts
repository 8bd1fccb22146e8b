/**
 * JupyterLab plugins of hpnb: the experiments sidebar with its experiment
 * views, and YAML highlighting of `%%hpsearch` cells.
 */

import {
  ILayoutRestorer,
  type JupyterFrontEnd,
  type JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, WidgetTracker, type MainAreaWidget } from '@jupyterlab/apputils';
import {
  EditorExtensionRegistry,
  IEditorExtensionRegistry,
  IEditorLanguageRegistry
} from '@jupyterlab/codemirror';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { LabIcon } from '@jupyterlab/ui-components';

import iconSvg from '../style/icon.svg';
import { EXPERIMENT_NAME, HpnbClient, type Requester } from './api';
import { createCompareView, type ComparePanel } from './compareView';
import { createExperimentView, type ExperimentPanel } from './experimentView';
import { preloadWhenHpnbIsUsed } from './dashboardPlotly';
import { hpsearchHighlighting } from './highlight';
import { preloadPlotly } from './plotting';
import { ExperimentsSidebar } from './sidebar';

const OPEN_COMMAND = 'hpnb:open-experiment';
const SHOW_COMMAND = 'hpnb:show-experiments';
const COMPARE_COMMAND = 'hpnb:compare-experiments';

/** Icon of the sidebar tab. */
export const hpnbIcon = new LabIcon({ name: 'hpnb:searches', svgstr: iconSvg });

function serverRequester(): Requester {
  const settings = ServerConnection.makeSettings();
  return (path, init = {}) =>
    ServerConnection.makeRequest(URLExt.join(settings.baseUrl, path), init, settings);
}

const sidebarPlugin: JupyterFrontEndPlugin<void> = {
  id: 'hpnb:experiments',
  description: 'Sidebar of hyperparameter searches and their experiment views.',
  autoStart: true,
  optional: [ILayoutRestorer, ICommandPalette],
  activate: (app: JupyterFrontEnd, restorer: ILayoutRestorer | null, palette: ICommandPalette | null) => {
    const client = new HpnbClient(serverRequester());
    const views = new WidgetTracker<MainAreaWidget<ExperimentPanel>>({ namespace: 'hpnb-experiment' });

    app.commands.addCommand(OPEN_COMMAND, {
      label: args => `Open hyperparameter search ${String(args.name ?? '')}`,
      execute: args => {
        const name = String(args.name ?? '');
        if (!EXPERIMENT_NAME.test(name)) {
          throw new Error(`not an experiment name: ${JSON.stringify(name)}`);
        }
        const open = views.find(view => view.content.experimentName === name);
        if (open) {
          app.shell.activateById(open.id);
          return;
        }
        const view = createExperimentView(client, name);
        void views.add(view);
        app.shell.add(view, 'main');
        app.shell.activateById(view.id);
      }
    });

    app.commands.addCommand(COMPARE_COMMAND, {
      label: 'Compare hyperparameter searches',
      execute: args => {
        const names = (Array.isArray(args.names) ? args.names : []).map(String);
        const view = createCompareView(client, names);
        const open = [...app.shell.widgets('main')].find(widget => widget.id === view.id);
        if (open) {
          view.dispose(); // this comparison is open already: show it again, freshly drawn
          app.shell.activateById(open.id);
          void (open as MainAreaWidget<ComparePanel>).content.refresh();
          return;
        }
        app.shell.add(view, 'main');
        app.shell.activateById(view.id);
      }
    });

    const sidebar = new ExperimentsSidebar(
      client,
      name => void app.commands.execute(OPEN_COMMAND, { name }),
      names => void app.commands.execute(COMPARE_COMMAND, { names }),
      preloadPlotly
    );
    sidebar.id = 'hpnb-experiments';
    sidebar.title.icon = hpnbIcon;
    sidebar.title.caption = 'Hyperparameter searches';
    app.shell.add(sidebar, 'left', { rank: 600 });
    restorer?.add(sidebar, 'hpnb-experiments');

    app.commands.addCommand(SHOW_COMMAND, {
      label: 'Show hyperparameter searches',
      execute: () => app.shell.activateById(sidebar.id)
    });
    palette?.addItem({ command: SHOW_COMMAND, category: 'Hyperparameter search' });
  }
};

const highlightPlugin: JupyterFrontEndPlugin<void> = {
  id: 'hpnb:hpsearch-highlight',
  description: 'YAML highlighting of the body of %%hpsearch cells; plotly.js for the dashboards once a cell uses hpnb.',
  autoStart: true,
  requires: [IEditorExtensionRegistry, IEditorLanguageRegistry],
  activate: async (
    app: JupyterFrontEnd,
    extensions: IEditorExtensionRegistry,
    languages: IEditorLanguageRegistry
  ) => {
    const preload = preloadWhenHpnbIsUsed(serverRequester());
    extensions.addExtension({
      name: 'hpnb:dashboard-plotly',
      factory: () => EditorExtensionRegistry.createImmutableExtension(preload)
    });
    const yaml = await languages.getLanguage('yaml');
    if (!yaml?.support) {
      console.warn('hpnb: no YAML language in this JupyterLab; %%hpsearch cells keep Python highlighting');
      return;
    }
    const extension = hpsearchHighlighting(yaml.support);
    extensions.addExtension({
      name: 'hpnb:hpsearch-yaml',
      factory: () => EditorExtensionRegistry.createImmutableExtension(extension)
    });
  }
};

export default [sidebarPlugin, highlightPlugin];
