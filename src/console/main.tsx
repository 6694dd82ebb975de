import { render } from 'preact';
import { App } from './App.js';
import './console.css';

// The page's shell (index.html) paints at once; the console mounts into it.
render(<App />, document.getElementById('app')!);
