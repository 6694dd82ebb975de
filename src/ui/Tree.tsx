import type React from 'react';
import { Box, Text } from 'ink';
import { Row } from './Rows.js';
import type { TreeLayout } from './tree-rows.js';

/** The state tree (a team's majors and personas, or a workflow's states and branches), laid out by `layoutTree`: labels, then entries, between two rules. */
export function Tree({ layout }: { layout: TreeLayout }): React.JSX.Element {
  return (
    <Box flexDirection="column" borderStyle="single" borderLeft={false} borderRight={false} borderDimColor>
      {layout.rows.map((row, i) => (
        <Box key={i} flexDirection="row">
          <Box width={layout.labelWidth} flexShrink={0}>
            <Text dimColor wrap="truncate-end">
              {row.label || ' '}
            </Text>
          </Box>
          <Row row={row.entries} />
        </Box>
      ))}
    </Box>
  );
}
